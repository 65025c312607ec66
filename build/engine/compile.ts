/**
 * Compiles the engine: libquickjs (quickjs-ng; once per package sha256 + edits + flags + compiler) and the glue
 * linked against it (once per glue sources + flags). Every output is named by a hash of its
 * inputs under the cache folder, written to a temporary name and renamed, so concurrent builds
 * and later runs are safe and instant.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildSync, transformSync } from 'esbuild';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';
import { QUICKJS_SOURCE_KEY, QUICKJS_SOURCES, ensureQuickjsSource } from './quickjs-source.ts';
import { findToolchain, npmBinaryen, WASM_OPT_FEATURES, type Binaryen, type Toolchain } from './toolchain.ts';
import { ENGINE_WASM_OPT, GLUE_OPT, QUICKJS_OPT } from './opt-flags.ts';
import { appendCustomSection, preludeHeader } from './internal/artifacts.ts';

const run = promisify(execFile);

/** The import namespace the engine announces to Javy in its `import_namespace` custom section. */
export const IMPORT_NAMESPACE = 'mep_quickjs_engine_v1';

/** Linker stack in bytes; the JS stack limit in glue/engine.h stays well below it. */
export const STACK_SIZE = 1024 * 1024;

export const COMMON_FLAGS = (tc: Toolchain): string[] => [
  '--target=wasm32-wasi',
  '-nostdlibinc', // without it clang-19 silently falls back to glibc headers
  '-isystem', tc.wasiInclude,
  '-mbulk-memory', // memcpy becomes memory.copy: the bulk data path
  '-mno-reference-types', // wizer 10 rejects reference types
  '-mno-multivalue',
];

/**
 * Flags for libquickjs (part of its cache key). No lifetime markers: clang turns each `goto
 * exception` out of a handler's block (whose locals they mark) into a cleanup, and three handlers'
 * cleanups were merged into the interpreter loop's back edge as a flag every bytecode tested there
 * (a phi V8 cannot thread: 3 more instructions and register moves per bytecode). Without them the
 * handlers jump straight back to the dispatch: V8 runs 3.6 % fewer instructions of the engine on
 * morphir-elm's compile (bench/wasm-callgrind), for 1.6 KB of code and 48 bytes more of
 * JS_CallInternal's frame in linear memory. The native twin (gcc) has no such merge.
 * No tail merging: LLVM's branch folder merged the handlers' identical last instructions (the
 * copies of an unchanged `sp`, or of `pc` after a one-byte bytecode, into the registers the
 * dispatch reads) into shared tails, which became three nested wasm loops around the dispatch,
 * each a loop header where V8 puts a stack check and a phi for every local the loop assigns;
 * without it all the handlers branch to the one header (bench/wasm-callgrind: see the commit).
 */
export const QUICKJS_FLAGS = [
  '-D_GNU_SOURCE',
  '-w',
  '-Xclang', '-disable-lifetime-markers',
  '-mllvm', '-enable-tail-merge=false',
];

/** Flags for the glue (part of the engine's cache key). */
export const GLUE_FLAGS = ['-Wall', '-Wno-unused-parameter', '-Werror=implicit-function-declaration'];

/** Link flags (part of the engine's cache key). */
export const LINK_FLAGS = [
  '-nostartfiles',
  '-Wl,--no-entry',
  `-Wl,-z,stack-size=${STACK_SIZE}`,
  '-Wl,--stack-first', // an overflow runs below address 0 and traps instead of corrupting data
  '-Wl,--strip-debug',
  // The MEP host channel is attached through the table at run time (glue/mep-host.c): the host
  // grows it by nine slots (eight under attach version 1) and fills them, so it must be exported and have no maximum.
  '-Wl,--export-table',
  '-Wl,--growable-table',
];

/**
 * How the engine is linked: wasm-ld named by path, and clang's own folder as PATH, so clang finds
 * no wasm-opt to run on its output unasked (it does when one is on PATH, at the link's level, and
 * clang-19's `--no-wasm-opt` skips the link itself); binaryen runs once, explicitly (`wasmOpt`).
 */
export const linkInvocation = (tc: Toolchain): { flags: string[]; env: NodeJS.ProcessEnv } => ({
  flags: [...LINK_FLAGS, `-fuse-ld=${tc.ld}`],
  env: { ...process.env, PATH: tc.linkPath },
});

/** Where the engine build put its outputs. */
export interface EngineArtifacts {
  /** The linked engine module (Javy plugin + Extism guest). */
  wasmPath: string;
  /** The hash of every input that names `wasmPath`. */
  hash: string;
  /** True when this call compiled something (false: everything came from the cache). */
  built: boolean;
}

const sha = (...parts: (string | Buffer)[]): string => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 16);
};

function toolError(what: string, e: unknown): MepError {
  const stderr = (e as { stderr?: string }).stderr?.trim();
  return new MepError(LocalErrorCode.Build, `engine build: ${what} failed: ${stderr || String(e)}`, { cause: e });
}

async function buildLibquickjs(tc: Toolchain, cacheDir: string): Promise<{ lib: string; include: string; key: string; built: boolean }> {
  const include = await ensureQuickjsSource(cacheDir);
  const key = sha(QUICKJS_SOURCE_KEY, tc.version, ...COMMON_FLAGS(tc), ...QUICKJS_FLAGS, JSON.stringify(QUICKJS_OPT));
  const dir = join(cacheDir, `lib-${key}`);
  const lib = join(dir, 'libquickjs.a');
  if (existsSync(lib)) return { lib, include, key, built: false };
  const tmp = join(cacheDir, `lib-${key}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // One file at a time: the build machine's cores are shared.
  for (const file of QUICKJS_SOURCES) {
    const out = join(tmp, file.replace(/\.c$/, '.o'));
    try {
      await run(tc.clang, [...COMMON_FLAGS(tc), QUICKJS_OPT[file], ...QUICKJS_FLAGS, '-c', join(include, file), '-o', out], { maxBuffer: 16 << 20 });
    } catch (e) {
      throw toolError(`compiling ${file}`, e);
    }
  }
  const objects = readdirSync(tmp).filter((f) => f.endsWith('.o')).map((f) => join(tmp, f));
  try {
    await run(tc.ar, ['rcs', join(tmp, 'libquickjs.a'), ...objects]);
  } catch (e) {
    throw toolError('archiving libquickjs', e);
  }
  for (const o of objects) rmSync(o);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another process won the race; its copy is identical
  }
  return { lib, include, key, built: true };
}

/** binaryen's one run on the linked engine, at the level opt-flags.ts chose by measurement. */
async function wasmOpt(binaryen: Binaryen, input: string, output: string): Promise<string> {
  try {
    await run(process.execPath, [binaryen.wasmOpt, input, '-o', output, ...WASM_OPT_FEATURES, ...ENGINE_WASM_OPT], { maxBuffer: 16 << 20 });
  } catch (e) {
    throw toolError(`wasm-opt ${ENGINE_WASM_OPT.join(' ')} (binaryen ${binaryen.version})`, e);
  }
  return output;
}

/**
 * The platform globals (glue/globals/, issue 23) as one minified script: its entry assigns the
 * installer that event-loop.c calls with the natives.
 */
export function bundleGlobals(dir: string): string {
  try {
    const out = buildSync({ entryPoints: [join(dir, 'index.js')], bundle: true, format: 'iife', minify: true, target: 'es2020', charset: 'ascii', write: false, legalComments: 'none', logLevel: 'silent' });
    return out.outputFiles[0]!.text.trim();
  } catch (e) {
    throw toolError('bundling glue/globals', e);
  }
}

/**
 * Builds (or finds in `cacheDir`) the engine module.
 *
 * @param glueDir folder with the glue C sources and prelude.js
 * @param cacheDir folder for every intermediate and output (e.g. `.cache/engine`)
 */
export async function compileEngine(glueDir: string, cacheDir: string): Promise<EngineArtifacts> {
  const tc = findToolchain();
  const binaryen = npmBinaryen();
  if (!binaryen) throw toolError('finding wasm-opt', new Error('the npm package binaryen is not installed: run npm ci'));
  const lib = await buildLibquickjs(tc, cacheDir);
  const glueFiles = readdirSync(glueDir).filter((f) => /\.(c|h|js)$/.test(f)).sort();
  const globalsDir = join(glueDir, 'globals');
  const globalsFiles = readdirSync(globalsDir).filter((f) => f.endsWith('.js')).sort();
  const glueParts = [...glueFiles.flatMap((f) => [f, readFileSync(join(glueDir, f))]), ...globalsFiles.flatMap((f) => [`globals/${f}`, readFileSync(join(globalsDir, f))])];
  // The recipe itself (this file and its helpers) is an input too: changing how the glue is
  // generated must not reuse an engine built the old way.
  const recipe = [fileURLToPath(import.meta.url), fileURLToPath(new URL('./internal/artifacts.ts', import.meta.url))].map((f) => readFileSync(f));
  const hash = sha(lib.key, IMPORT_NAMESPACE, GLUE_OPT, ...GLUE_FLAGS, ...LINK_FLAGS, `binaryen ${binaryen.version}`, ...ENGINE_WASM_OPT, ...glueParts, ...recipe);
  const wasmPath = join(cacheDir, `engine-${hash}.wasm`);
  if (existsSync(wasmPath)) return { wasmPath, hash, built: lib.built };

  const gen = join(cacheDir, `gen-${hash}-${process.pid}`);
  mkdirSync(gen, { recursive: true });
  try {
    // Minified: the prelude's text and bytecode live in every guest's snapshot.
    // The prelude is one function expression; assigning it keeps the minifier from dropping it.
    const source = `globalThis.__mep_prelude = ${readFileSync(join(glueDir, 'prelude.js'), 'utf8').trim().replace(/;$/, '')};`;
    const minified = transformSync(source, { minify: true, target: 'es2020', charset: 'ascii' }).code.trim();
    const prelude = minified.replace(/^globalThis\.__mep_prelude\s*=\s*/, '').replace(/;$/, '');
    if (prelude === minified) throw toolError('minifying prelude.js', new Error('unexpected minifier output'));
    writeFileSync(join(gen, 'mep_prelude.h'), preludeHeader(prelude));
    writeFileSync(join(gen, 'mep_globals.h'), preludeHeader(bundleGlobals(globalsDir), 'mep_globals_js', 'glue/globals/'));
    const linked = join(gen, 'engine.wasm');
    const sources = glueFiles.filter((f) => f.endsWith('.c')).map((f) => join(glueDir, f));
    try {
      const link = linkInvocation(tc);
      await run(tc.clang, [...COMMON_FLAGS(tc), GLUE_OPT, ...GLUE_FLAGS, '-I', lib.include, '-I', gen, ...sources, lib.lib, ...link.flags, '-o', linked], { maxBuffer: 16 << 20, env: link.env });
    } catch (e) {
      throw toolError('compiling and linking the glue', e);
    }
    const optimized = await wasmOpt(binaryen, linked, join(gen, 'engine.opt.wasm'));
    const bytes = appendCustomSection(readFileSync(optimized), 'import_namespace', Buffer.from(IMPORT_NAMESPACE, 'utf8'));
    const tmp = `${wasmPath}.tmp-${process.pid}`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, wasmPath);
  } finally {
    rmSync(gen, { recursive: true, force: true });
  }
  return { wasmPath, hash, built: true };
}
