/**
 * The console of a process extension, installed when this module is evaluated: the process
 * binding imports it first and `mep build` puts the binding before the extension's own code, so
 * even a top-level `console.log` never writes to stdout, which carries frames only. Every method
 * is Node's own (formatting, `group` indentation, `table`, `count`, `time`), and each line goes to
 * the host as a `morphir.log` notification at the level the wasm sandbox gives the same method
 * (debug and trace: debug; warn and assert: warn; error: error; the rest: info), so a user sees
 * an extension's warnings the same way whichever runtime it was built for.
 */
import { encodeContentLength } from '../../../host/src/framing/index.ts';
import { Method } from '../../../host/src/protocol/index.ts';
import type { LogLevel } from '../../../host/src/protocol/index.ts';

/** Where a log line goes: a `morphir.log` frame on stdout unless the binding routes it. */
export type ProcessLogSink = (level: LogLevel, message: string) => void;

/** The sandbox's level of each console method (glue/globals/console.js). */
const LEVELS: Readonly<Record<string, LogLevel>> = {
  log: 'info', info: 'info', dir: 'info', dirxml: 'info', table: 'info', count: 'info', countReset: 'warn', group: 'info', groupCollapsed: 'info',
  groupEnd: 'info', time: 'warn', timeLog: 'info', timeEnd: 'info', debug: 'debug', trace: 'debug', warn: 'warn', assert: 'warn', error: 'error',
};

let sink: ProcessLogSink = (level, message) => {
  process.stdout.write(encodeContentLength(JSON.stringify({ jsonrpc: '2.0', method: Method.Log, params: { level, message } })));
};
let level: LogLevel = 'info';

/** Sends one log line to the host (what console methods, timers that threw and unhandled rejections use). */
export function processLog(at: LogLevel, message: string): void {
  try {
    sink(at, message);
  } catch {
    // stdout is gone (the host closed it): there is no one left to tell.
  }
}

/** Routes the log through the binding from now on (it stops sending once the host said exit). */
export function setProcessLogSink(next: ProcessLogSink): void {
  sink = next;
}

function installConsole(): Console {
  // Node's Console writes each call's text (group indentation included) in one write.
  const lines = { write: (chunk: string | Uint8Array): boolean => (processLog(level, String(chunk).replace(/\n$/, '')), true) };
  const base = new console.Console({ stdout: lines as unknown as NodeJS.WritableStream, stderr: lines as unknown as NodeJS.WritableStream, ignoreErrors: false, colorMode: false });
  const leveled: Record<string, unknown> = { ...(base as unknown as Record<string, unknown>) };
  for (const [method, at] of Object.entries(LEVELS)) {
    const fn = (base as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
    if (typeof fn !== 'function') continue;
    leveled[method] = (...args: unknown[]): unknown => {
      const outer = level;
      level = at;
      try {
        return fn.apply(base, args);
      } finally {
        level = outer;
      }
    };
  }
  Object.defineProperty(globalThis, 'console', { value: leveled, writable: true, configurable: true });
  return leveled as unknown as Console;
}

/** The installed console (evaluating this module installs it). */
export const PROCESS_CONSOLE: Console = installConsole();
