/**
 * The engine's quickjs-ng built natively: the same fetched sources with the same edits and the
 * same optimization level per file (./opt-flags.ts) as the wasm engine, plus quickjs-ng's own OS
 * library and a small runner (native/runner.c), compiled with the machine's C compiler. It is what the sandbox is measured against (bench/quickjs-elm)
 * and what the edits are measured on (callgrind counts a native run's instructions exactly).
 * Never part of a guest.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { QUICKJS_LIBC, QUICKJS_PATCHES, QUICKJS_SOURCES, ensureQuickjsSource, sourceKey, type QuickjsPatch } from './quickjs-source.ts';
import { GLUE_OPT, QUICKJS_OPT, type OptFlag } from './opt-flags.ts';
import { nativeObject } from './native-object.ts';

const run = promisify(execFile);
const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'native', 'runner.c');

/** Options of {@link ensureNativeEngine}. */
export interface NativeEngineOptions {
  /** Cache folder (the engine's, `.cache/engine`). */
  cacheDir: string;
  /** The edits (default: the wasm engine's, {@link QUICKJS_PATCHES}). */
  patches?: readonly QuickjsPatch[];
  /** One optimization flag for every file (default: the wasm engine's, per file: ./opt-flags.ts). */
  opt?: OptFlag;
  /** The C compiler (default `cc`). */
  cc?: string;
}

/**
 * Returns the path of the native runner (`runner FILE`), building it the first time. Throws
 * `MepError` `ERR_BUILD` when the compiler is missing or fails.
 */
export async function ensureNativeEngine(options: NativeEngineOptions): Promise<string> {
  const patches = options.patches ?? QUICKJS_PATCHES;
  const cc = options.cc ?? 'cc';
  const src = await ensureQuickjsSource(options.cacheDir, { patches });
  const flags = ['-D_GNU_SOURCE', '-w', '-I', src];
  // The runner and quickjs-libc stand in for the glue: they get the glue's level.
  const files: [string, OptFlag][] = [
    [RUNNER, options.opt ?? GLUE_OPT],
    [join(src, QUICKJS_LIBC), options.opt ?? GLUE_OPT],
    ...QUICKJS_SOURCES.map((f): [string, OptFlag] => [join(src, f), options.opt ?? QUICKJS_OPT[f]]),
  ];
  const levels = files.map(([f, opt]) => `${f.split('/').pop()}${opt}`);
  const key = createHash('sha256').update([sourceKey(patches), cc, ...flags.slice(0, -1), ...levels, readFileSync(RUNNER, 'utf8')].join('\0')).digest('hex').slice(0, 16);
  const out = join(options.cacheDir, `native-${key}`, 'runner');
  if (existsSync(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  // The runner and quickjs-libc are compiled for this runner alone; quickjs-ng's own files are
  // shared with the other native builds that compile them alike (./native-object.ts).
  const own = files.slice(0, 2);
  const objects = own.map(([f]) => `${tmp}-${f.split('/').pop()!.replace(/\.c$/, '.o')}`);
  try {
    // One file at a time: the build machine's cores are shared.
    for (const [i, [file, opt]] of own.entries()) await run(cc, [opt, ...flags, '-c', file, '-o', objects[i]!], { maxBuffer: 16 << 20 });
    const shared: string[] = [];
    for (const [i, f] of QUICKJS_SOURCES.entries()) {
      shared.push(await nativeObject({ cacheDir: options.cacheDir, cc, flags: [files[i + 2]![1], ...flags.slice(0, -2)], src, srcKey: sourceKey(patches), file: f }));
    }
    await run(cc, ['-o', tmp, ...objects, ...shared, '-lm', '-lpthread'], { maxBuffer: 16 << 20 });
  } catch (e) {
    rmSync(tmp, { force: true });
    const stderr = (e as { stderr?: string }).stderr?.trim();
    throw new MepError(LocalErrorCode.Build, `cannot build the native quickjs-ng runner with ${cc}: ${stderr || String(e)}. Install a C compiler (apt-get install gcc).`, { cause: e });
  } finally {
    for (const o of objects) rmSync(o, { force: true });
  }
  renameSync(tmp, out);
  return out;
}
