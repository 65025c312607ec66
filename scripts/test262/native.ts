/**
 * The test262 runner's native engines: quickjs-ng from the engine's own Debian source package,
 * built with the machine's C compiler once without the project's edits and once with them
 * (build/engine/patches), each cached under `.cache/test262/` by a hash of its sources, edits,
 * flags and ./native.c (quickjs-ng's objects with the engine's other native builds,
 * build/engine/native-object.ts). A {@link NativeRunner} is one long-lived process running many tests, each
 * in a fresh runtime.
 */
import { createHash } from 'node:crypto';
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { ENGINE_CACHE_DIR, REPO_ROOT } from '../../build/engine/index.ts';
import { QUICKJS_PATCHES, QUICKJS_SOURCES, ensureQuickjsSource, sourceKey } from '../../build/engine/quickjs-source.ts';
import { nativeObject } from '../../build/engine/native-object.ts';
import type { EngineRun, RunOutcome } from './outcome.ts';

const run = promisify(execFile);
const RUNNER_C = join(dirname(fileURLToPath(import.meta.url)), 'native.c');
/** Where the native test262 engines are cached. */
export const TEST262_CACHE = join(REPO_ROOT, '.cache', 'test262');
/**
 * The optimization level of both engines, built alike so that the differential compares the
 * edits, not the optimizer. -O1 (the default) for the whole suite, whose runs are many; -O0 for
 * `npm test`'s sample, where the compile is most of the cost: a clean checkout compiles
 * quickjs-ng twice (unedited, edited), and the sample with the heap-fault test took 18.7-19.9 s
 * of CPU cold at -O0 against 34.9 at -O1 (warm 6.6 against 4.8: the slower runs), with the same
 * verdicts (measured 2026-12-03). The heap-fault runner compiles the edited files at -O0 too
 * (build/engine/heap-faults.test.ts), so one build serves both.
 */
export type NativeOpt = '-O0' | '-O1';
const FLAGS = ['-D_GNU_SOURCE', '-w'];

/** Which sources a native engine is built from. */
export type NativeVariant = 'unedited' | 'edited';

/**
 * Returns the path of the native test262 runner for `variant`, compiling it the first time (a
 * minute or so per variant). Throws `MepError` `ERR_BUILD` when the compiler is missing or fails.
 */
export async function ensureNativeRunner(variant: NativeVariant, opt: NativeOpt = '-O1', cc = process.env.CC ?? 'cc'): Promise<string> {
  const patches = variant === 'edited' ? QUICKJS_PATCHES : [];
  const src = await ensureQuickjsSource(ENGINE_CACHE_DIR, { patches });
  const hash = (...parts: string[]): string => createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16);
  const flags = [opt, ...FLAGS];
  const libKey = hash(sourceKey(patches), cc, ...flags);
  const out = join(TEST262_CACHE, `native-${variant}-${hash(libKey, readFileSync(RUNNER_C, 'utf8'))}`, 'runner');
  if (existsSync(out)) return out;
  try {
    // quickjs-ng's files are compiled one at a time (the cores are shared) and cached with the
    // engine's other native builds: the edited ones are the heap-fault runner's too.
    const objects: string[] = [];
    for (const file of QUICKJS_SOURCES) objects.push(await nativeObject({ cacheDir: ENGINE_CACHE_DIR, cc, flags, src, srcKey: sourceKey(patches), file }));
    mkdirSync(dirname(out), { recursive: true });
    const tmp = `${out}.tmp-${process.pid}`;
    await run(cc, [...flags, '-I', src, '-o', tmp, RUNNER_C, ...objects, '-lm', '-lpthread'], { maxBuffer: 16 << 20 });
    renameSync(tmp, out);
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr?.trim();
    throw new MepError(LocalErrorCode.Build, `cannot build the native test262 runner (${variant}) with ${cc}: ${stderr || String(e)}. Install a C compiler (apt-get install gcc).`, { cause: e });
  }
  return out;
}

/** One long-lived native runner process. */
export interface NativeRunner {
  run(job: EngineRun): Promise<RunOutcome>;
  close(): void;
}

const F_MODULE = 1;
const F_CANNOT_BLOCK = 2;

/**
 * Starts the runner at `path`. Jobs are pipelined (written without waiting for the answers before
 * them, which a loaded machine would make slow) and answered in order; a test that crashes the
 * process gets `crashed`, and the jobs after it go to a fresh process.
 */
export function startNativeRunner(path: string): NativeRunner {
  type Pending = { job: EngineRun; resolve: (o: RunOutcome) => void };
  let child: ChildProcessWithoutNullStreams | undefined;
  let queue: Pending[] = [];
  let buffer = Buffer.alloc(0);
  let stderr = '';
  const encode = (job: EngineRun): Buffer => {
    const name = Buffer.from(job.file);
    const src = Buffer.from(job.source);
    const flags = (job.module ? F_MODULE : 0) | (job.canBlock ? 0 : F_CANNOT_BLOCK);
    return Buffer.concat([Buffer.from(`${flags} ${job.includes.length} ${name.length} ${src.length}\n${job.includes.map((i) => `${i}\n`).join('')}`), name, src]);
  };
  const start = (): ChildProcessWithoutNullStreams => {
    const c = spawn(path, [], { stdio: 'pipe' });
    buffer = Buffer.alloc(0);
    c.stdout.on('data', (d: Buffer) => {
      buffer = Buffer.concat([buffer, d]);
      for (;;) {
        const nl = buffer.indexOf(10);
        if (nl < 0) return;
        const [threw, printLen, errLen] = buffer.subarray(0, nl).toString().split(' ').map(Number) as [number, number, number];
        const end = nl + 1 + printLen + errLen;
        if (buffer.length < end) return;
        const printed = buffer.subarray(nl + 1, nl + 1 + printLen).toString();
        const error = buffer.subarray(nl + 1 + printLen, end).toString();
        buffer = buffer.subarray(end);
        queue.shift()?.resolve({ threw: threw !== 0, printed, error });
      }
    });
    c.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-4000)));
    c.stdin.on('error', () => undefined); // the exit handler below reports a crash
    c.on('exit', (code, signal) => {
      if (child !== c) return;
      child = undefined;
      const [head, ...rest] = queue;
      queue = [];
      head?.resolve({ threw: true, printed: '', error: `crashed: ${signal ?? `exit ${code}`} ${stderr.trim()}`, crashed: true });
      stderr = '';
      if (rest.length === 0) return;
      child = start();
      for (const p of rest) {
        queue.push(p);
        child.stdin.write(encode(p.job));
      }
    });
    return c;
  };
  return {
    run(job) {
      child ??= start();
      const c = child;
      return new Promise((resolve) => {
        queue.push({ job, resolve });
        c.stdin.write(encode(job));
      });
    },
    close() {
      const c = child;
      child = undefined;
      c?.stdin.end();
    },
  };
}
