/**
 * What the early start (early-start.ts) prepares for an operation on a `.wasm` file given by path,
 * before its command has loaded (issue 32): the module is read, hashed, shape-checked (or its kept
 * verdict read), memory-capped and compiled on the early thread, then instantiated on the worker
 * the early start prestarted, while the command's own modules still load. `mep compile`'s start
 * (early-compile.ts) chooses V8's tier first; `mep generate`, `validate` and `transform`'s
 * (early-operation.ts) read their input meanwhile.
 *
 * The command's launch (registry/launch.ts) takes the module offered here when the file's identity
 * (inode, size, mtime, ctime: the early read's bytes came from that very file) and the memory cap
 * are still those of its own key (registry/module-file.ts): the file was not written since, so what
 * was read, hashed and compiled here is what the launch would read. Only a file no lock pins is
 * offered (installed ids are never early). The module itself comes from `compileExtensionModule`,
 * every check included (shape walk or kept verdict, cap), with the cap from the same flags by the
 * same parser (limit-flags.ts). A guess that misses costs only the work done here.
 */
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { readRegularFile } from '../files/regular-file.ts';
import { identityOf, moduleFileKey, offerModuleAhead } from '../registry/module-file.ts';
import { keepShapeVerdicts, keptShapeVerdicts, shapeVerdictsDirectory } from '../registry/shape-verdicts.ts';
import { resolveWasmLimits } from '../transport/wasm/limits.ts';
import { compileExtensionModule } from '../transport/wasm/module.ts';
import { earlyWorkerThread, type WorkerThread } from '../transport/wasm/node/early-thread.ts';
import { codeCacheCompiler, type CompiledCodePlace } from '../transport/wasm/node/compiled-code-cache.ts';
import { noteCompiledCode, postCompileFile } from '../transport/wasm/node/file-module.ts';
import { wasmTierChoice } from '../transport/wasm/node/wasm-tier.ts';
import { registryPaths } from '../registry/paths.ts';
import { parseGrantFlags, type GrantFlagValues } from './commands/grant-flags.ts';
import { parseLimitFlags, type LimitFlagValues } from './commands/limit-flags.ts';

/** An operation's `.wasm` file, as the early start found it. */
export interface EarlyModule {
  /** The `--extension` value, as given (the extension's name in errors). */
  extension: string;
  /** The file, absolute. */
  path: string;
  /** Its stat, taken before anything was read: the key the module is offered under. */
  file: Stats;
  /** The command's flags, parsed with its own table: the limits and grants. */
  values: LimitFlagValues & GrantFlagValues;
}

/** `MEP_WASM_CODE_CACHE` values that keep the cache on (unset included); `eager` too. */
const CODE_CACHE_ON = new Set(['', '1', 'on', 'true', 'yes']);

/**
 * Where the `mep` command keeps guests' compiled code (transport/wasm/node/compiled-code-cache.ts):
 * `$MEP_HOME/cache/wasm-code`, with the tier flag this process chose; undefined when
 * `MEP_WASM_CODE_CACHE` turns the cache off (`0`, `off`, … and any value it does not know: a
 * misspelt attempt to turn off a cache of machine code reads as off, not on);
 * `MEP_WASM_CODE_CACHE=eager` writes it on the first miss (no marker first: an install step, a CI cache).
 */
export function compiledCodeCache(setting: string | undefined = process.env.MEP_WASM_CODE_CACHE): CompiledCodePlace | undefined {
  const value = setting?.trim().toLowerCase() ?? '';
  if (value !== 'eager' && !CODE_CACHE_ON.has(value)) return undefined;
  const tier = wasmTierChoice();
  return { dir: join(registryPaths({ cwd: process.cwd() }).user.root, 'cache', 'wasm-code'), ...(tier === undefined ? {} : { tier }), ...(value === 'eager' ? { eager: true } : {}) };
}

/** The module compiled early, held for the process's life (a one-shot command): the compile caches keep only weak references. */
let held: WebAssembly.Module | undefined;

/**
 * Starts preparing `early`'s module: read (here, where no early thread runs), then, once
 * `beforeCompile` says yes (compile's tier choice: V8 fixes a module's tiers when it compiles it),
 * compiled on the early thread or here, offered to the command's launch and instantiated on the
 * prestarted worker. Resolves once under way, with the promise of the module (handled: it may
 * reject unseen); undefined when `beforeCompile` said no. Rejects as `beforeCompile` does, or
 * when the host's read for the early thread fails (the command reads again and reports it).
 */
export async function startModule(early: EarlyModule, beforeCompile?: () => Promise<boolean>): Promise<{ module: Promise<WebAssembly.Module> } | undefined> {
  const { path, file, values } = early;
  const limitFlags = parseLimitFlags(values);
  const { maxMemoryBytes, maxModuleBytes } = limitFlags;
  const limits = { ...(maxMemoryBytes === undefined ? {} : { maxMemoryBytes }), ...(maxModuleBytes === undefined ? {} : { maxModuleBytes }) };
  const name = early.extension;
  // On the thread the command started first, if it did (early-thread.ts): this thread loads the command meanwhile.
  const thread = earlyWorkerThread();
  // Else read here meanwhile; a failure is the command's to report (handled here, so it is never unhandled).
  const bytes = thread ? undefined : readRegularFile(path, { what: 'the wasm module', maxBytes: resolveWasmLimits(name, limits).maxModuleBytes, limit: 'maxModuleBytes' });
  bytes?.catch(() => undefined);
  if (beforeCompile !== undefined && !(await beforeCompile())) return undefined;
  // As `mep` does for every command (main.ts): the shape walk's verdict is read from (and kept in) $MEP_HOME.
  keepShapeVerdicts(true);
  const shapeVerdicts = keptShapeVerdicts();
  // After `beforeCompile`: the tier it chose is what the cache puts back after its own use.
  const compiledCode = compiledCodeCache();
  // Posted before this returns (the host's read awaited here): the command's modules, which load
  // next on this thread, would hold the request back otherwise, and the thread waits for it.
  const compiling = bytes === undefined
    ? (await postCompileFile(thread as WorkerThread, { path, name, limits, verdicts: shapeVerdictsDirectory(), identity: identityOf(file), ...(compiledCode === undefined ? {} : { compiledCode }) })).module
    : bytes.then((read) => {
        const sha256 = createHash('sha256').update(read).digest('hex');
        const compileBytes = codeCacheCompiler(compiledCode, noteCompiledCode);
        return compileExtensionModule(read, { name, sha256, limits, ...(shapeVerdicts === undefined ? {} : { shapeVerdicts }), ...(compileBytes === undefined ? {} : { compileBytes }) });
      });
  // Keyed by the file as stat saw it: the bytes were read after that (here), or on the thread from
  // the file with that very identity (read as it booted, or now: file-module.ts); a write since,
  // and the launch computes another key.
  offerModuleAhead(moduleFileKey(path, file, maxMemoryBytes, undefined), compiling);
  // Then the prestarted worker instantiates it (7 MB of snapshot into the guest's memory) while
  // the command still loads: prepared for the very guest the command's session asks for (the
  // pool's key: this module, and the spec the command builds from these flags, specOfFile).
  // Only instantiated, never called. Only that thread: if the session took it first, it
  // prepares it itself and nothing more starts.
  // Loaded while the module is compiled, so the instantiation is asked for the moment it is in
  // (the command's own modules load on this thread meanwhile and would hold it back).
  const launch = import('../registry/launch.ts');
  launch.catch(() => undefined);
  const warmed = compiling.then(async (module) => {
    held = module;
    const { specOfFile, warmTransport } = await launch;
    void warmTransport(specOfFile(path, limitFlags, parseGrantFlags(values)), { onlyPrestarted: true });
    return module;
  });
  warmed.catch(() => undefined);
  return { module: warmed };
}
