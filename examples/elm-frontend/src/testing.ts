/**
 * For the frontend's Node-side tests: morphir-elm's worker read from node_modules (what the
 * bundle embeds), a compiled worker shared by the tests of one process, and a handler context
 * that records what the handler reports.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { HandlerContext } from '../../../guest-pdk/src/index.ts';
import { compileElmWorker, createElmWorker, type ElmConsole, type ElmWorker, type ElmWorkerCode } from './elm-worker.ts';
import { createTimerQueue } from './timer-queue.ts';

const require = createRequire(import.meta.url);

/** The installed `morphir-elm/cli2/Morphir.Elm.CLI.js`, and morphir-elm's version. */
export function installedWorkerSource(): { source: string; version: string } {
  const source = readFileSync(require.resolve('morphir-elm/cli2/Morphir.Elm.CLI.js'), 'utf8');
  const version = (JSON.parse(readFileSync(require.resolve('morphir-elm/package.json'), 'utf8')) as { version: string }).version;
  return { source, version };
}

/** A console that prints nothing. */
export const QUIET: ElmConsole = { log: () => undefined, warn: () => undefined, error: () => undefined };

let code: ElmWorkerCode | undefined;

/** The installed worker, edited and parsed once per process. */
export function workerCode(): ElmWorkerCode {
  const { source, version } = installedWorkerSource();
  code ??= compileElmWorker(source, version);
  return code;
}

let shared: ElmWorker | undefined;

/** One worker on a timer queue for the tests of this process. */
export function sharedWorker(): ElmWorker {
  shared ??= createElmWorker(workerCode(), createTimerQueue(), QUIET);
  return shared;
}

/** A handler context that records progress and logs. */
export function recordingContext(): HandlerContext & { progressed: string[]; logged: string[] } {
  const progressed: string[] = [];
  const logged: string[] = [];
  return {
    requestId: 1,
    progressed,
    logged,
    progress: (kind, message) => void progressed.push(`${kind}:${message ?? ''}`),
    log: (level, message) => void logged.push(`${level}:${message}`),
    secret: () => Promise.reject(new Error('no secrets in tests')),
    cancelled: false,
    throwIfCancelled: () => undefined,
  };
}
