/**
 * Compiling wasm extensions once (keyed by sha256 of the bytes and the memory cap) and checking
 * that a module is an MEP guest that asks for nothing the sandbox does not give.
 */
import { ErrorCode, LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { guestAbi, HOST_CHANNEL_SIGNATURES, type GuestAbi } from './host-channel.ts';
import { raiseAdvice, WASM_MODULE_BOUNDS } from '../../protocol/limits.ts';
import { hasSection, MemoryCapError, START_SECTION } from './memory-cap.ts';
import { capSectionsImportingMemory, POOLED_MEMORY_MODULE, pooledMemoryOf } from './memory-import.ts';
import { createModuleCache } from './module-cache.ts';
import { ModuleShapeError, readModuleShape, SHAPE_RULES, type RefusedFeature } from './module-shape.ts';
import { maxMemoryPages, resolveWasmLimits, type WasmLimits } from './limits.ts';

/** Options for {@link compileExtensionModule}. */
export interface CompileExtensionOptions {
  /** The extension id or artifact path, for error messages. */
  name: string;
  /** Only `maxMemoryBytes` and `maxModuleBytes` matter here; defaults apply. */
  limits?: Partial<WasmLimits>;
  /**
   * The sha256 (64 lowercase hex digits) of exactly these bytes, when the caller computed it from
   * them (a launcher checking a pin): they are not hashed again. The compiled-module cache is
   * keyed by it, so it must be the hash of these very bytes.
   */
  sha256?: string;
  /**
   * Verdicts of the shape walk kept across processes (the `mep` command keeps them in the user's
   * `$MEP_HOME`): a module whose exact bytes (by sha256) passed the walk and compiled under the
   * same {@link SHAPE_RULES} is not walked again, and one that passes now is recorded. A store
   * that fails costs only the walk.
   */
  shapeVerdicts?: ShapeVerdicts;
  /**
   * The caller gives up `source` (a Uint8Array) and this many bytes before it in its buffer, which
   * no one else uses (files/regular-file.ts `headroom`): the memory cap rewrites the module in
   * place instead of copying it (memory-cap.ts `capSections`). Default: `source` is left as it is.
   */
  headroom?: number;
  /**
   * Compiles exactly the bytes to run (after the memory cap's rewrite) in place of
   * `WebAssembly.compile`: the `mep` command's worker passes its compiled-code cache
   * (node/compiled-code-cache.ts). It rejects as `WebAssembly.compile` does for an invalid module.
   */
  compileBytes?: (wire: Uint8Array) => Promise<WebAssembly.Module>;
}

/** Where verdicts of the module shape walk are kept between processes; see {@link CompileExtensionOptions.shapeVerdicts}. */
export interface ShapeVerdicts {
  /** True when the bytes of `sha256` passed the walk under `rules` before. */
  has(sha256: string, rules: string): Promise<boolean>;
  /** Records that the bytes of `sha256` passed the walk under `rules` (and compiled). */
  add(sha256: string, rules: string): Promise<void>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;


/** Extism kernel functions a guest may import. `http_*` is left out on purpose: no network. */
const EXTISM_KERNEL = new Set([
  'alloc', 'free', 'length', 'length_unsafe', 'load_u8', 'load_u64', 'store_u8', 'store_u64',
  'input_offset', 'input_length', 'input_load_u8', 'input_load_u64', 'output_set', 'error_set',
  'config_get', 'var_get', 'var_set', 'log_info', 'log_debug', 'log_warn', 'log_error',
]);
/** The MEP host functions a legacy (`mep-imports`) guest may import from `extism:host/user`. */
const HOST_FUNCTIONS = new Set<string>(HOST_CHANNEL_SIGNATURES.map(([fn]) => fn));
const POINTER_FUNCTIONS = new Set(['mep_input_copy', 'mep_output_copy', 'mep_notify', 'mep_request', 'mep_reply_copy', 'mep_random_fill']);

/** Compiled modules, kept only while something uses them (module-cache.ts). */
const cache = createModuleCache(64);
const capped = new WeakMap<WebAssembly.Module, number>();
/** Modules compiled here that have a start function. */
const starting = new WeakSet<WebAssembly.Module>();
/** Modules compiled here whose memory the host made an import of its pool's (memory-import.ts). */
const recycling = new WeakSet<WebAssembly.Module>();

/**
 * Compiles a wasm extension with its memory capped at `limits.maxMemoryBytes`, once per
 * (sha256, cap): later calls return the cached module while it is alive (the cache holds it only
 * weakly: a module nothing uses any more is freed). A `WebAssembly.Module` is returned as is
 * (its memory cannot be rewritten; the transport then checks memory after each call instead).
 * Rejects with MepError(ERR_LIMIT) when the bytes are more than `limits.maxModuleBytes` (checked
 * before anything else), when the module's shape is above one of WASM_MODULE_BOUNDS (checked
 * before it is compiled: `data.limit` names the bound) or it declares more initial memory than
 * the cap, MepError(ERR_USAGE) when the bytes are not a valid wasm module. Its tables are capped
 * at WASM_MODULE_BOUNDS.tableEntries as its memory is at the memory cap.
 *
 * @example
 * const module = await compileExtensionModule(bytes, { name: 'avro' });
 * const transport = await createWasmTransport({ name: 'avro', module, isolation: 'inline' });
 * try { … } finally { await transport.close(); }
 */
export async function compileExtensionModule(
  source: Uint8Array | ArrayBuffer | WebAssembly.Module,
  options: CompileExtensionOptions,
): Promise<WebAssembly.Module> {
  if (source instanceof WebAssembly.Module) return source;
  const { name } = options;
  const bytes = source instanceof Uint8Array ? source : new Uint8Array(source);
  const limits = resolveWasmLimits(name, options.limits);
  checkModuleSize(name, bytes.length, limits.maxModuleBytes);
  const capPages = maxMemoryPages(limits);
  if (options.sha256 !== undefined && !SHA256_HEX.test(options.sha256)) {
    throw new MepError(LocalErrorCode.Usage, `compileExtensionModule of "${name}": options.sha256 must be the bytes' sha256 as 64 lowercase hex digits, got '${options.sha256.slice(0, 80)}'.`, { data: { extension: name } });
  }
  const sha256 = options.sha256 ?? (await sha256Hex(bytes));
  const headroom = source instanceof Uint8Array ? options.headroom : undefined;
  return cache.get(`${sha256}:${capPages}`, () => compileCapped(bytes, capPages, name, sha256, options.shapeVerdicts, headroom, options.compileBytes));
}

/**
 * Takes in a module that {@link compileExtensionModule} compiled on another thread of this process
 * (transport/wasm/node/file-module.ts: a worker prepared it from its file) as if it had compiled
 * it here: cached under the same sha256 and cap, with its cap and start function known. Only for
 * a module from that function: what is said of it here is trusted as this module's own record.
 */
export function adoptCompiledModule(module: WebAssembly.Module, sha256: string, capPages: number, start: boolean, recycled: boolean): Promise<WebAssembly.Module> {
  capped.set(module, capPages);
  if (start) starting.add(module);
  // What that compile made, never the import's name: a guest may name the pool's import itself.
  if (recycled && pooledMemoryOf(module) !== undefined) recycling.add(module);
  return cache.get(`${sha256}:${capPages}`, () => Promise.resolve(module));
}

/** Whether {@link compileExtensionModule} made `module`'s memory an import of the pool (memory-import.ts), on this thread. */
export function recyclesMemory(module: WebAssembly.Module): boolean {
  return recycling.has(module);
}

/** The page cap compiled into `module` by {@link compileExtensionModule}, if it went through it. */
export function memoryCapOf(module: WebAssembly.Module): number | undefined {
  return capped.get(module);
}

/**
 * Whether `module` has a start function (guest code the engine runs while instantiating): known
 * for modules compiled by {@link compileExtensionModule}, `undefined` for a module compiled
 * elsewhere (its bytes are gone).
 */
export function hasStartFunction(module: WebAssembly.Module): boolean | undefined {
  if (starting.has(module)) return true;
  return capped.has(module) ? false : undefined;
}

/**
 * Refuses a module of `size` bytes above `maxModuleBytes` with MepError(ERR_LIMIT) naming the
 * option that raises it; called before the bytes are read (by their file size) or compiled.
 */
export function checkModuleSize(name: string, size: number, maxModuleBytes: number): void {
  if (size <= maxModuleBytes) return;
  throw new MepError(
    LocalErrorCode.Limit,
    `Wasm extension "${name}" is ${size} bytes, above its module size limit of ${maxModuleBytes} bytes; it was not compiled. ${raiseAdvice('maxModuleBytes', maxModuleBytes)}`,
    { data: { extension: name, limit: 'maxModuleBytes', size, limitBytes: maxModuleBytes } },
  );
}

async function compileCapped(bytes: Uint8Array, capPages: number, name: string, sha256: string, verdicts: ShapeVerdicts | undefined, headroom: number | undefined, compileBytes = (wire: Uint8Array) => WebAssembly.compile(wire as Uint8Array<ArrayBuffer>)): Promise<WebAssembly.Module> {
  // The walk is linear in the module's size (about 0.1 s of CPU for a 7.6 MB guest in a fresh process).
  const walked = !(await verdicts?.has(sha256, SHAPE_RULES).catch(() => false));
  if (walked) checkModuleShape(bytes, name);
  let rewritten: Uint8Array;
  let importsMemory = false;
  try {
    // One copy of the module with both capped (7.6 MB for a guest; capping each in turn copied it
    // twice), its memory made an import the engine fills from its pool (memory-pool.ts).
    const result = capSectionsImportingMemory(bytes, capPages, WASM_MODULE_BOUNDS.tableEntries, undefined, headroom);
    rewritten = result.bytes;
    importsMemory = result.memory !== undefined;
  } catch (error) {
    if (error instanceof MemoryCapError && error.reason === 'min-above-cap') {
      throw new MepError(
        LocalErrorCode.Limit,
        `Wasm extension "${name}" needs ${error.minPages} pages (${error.minPages * 64} KiB) of memory at start, above its limit of ${capPages} pages: rebuild it with a smaller initial memory, or raise the limit. ${raiseAdvice('maxMemoryBytes', capPages * 65_536, error.minPages * 65_536)}`,
        { data: { extension: name, limit: 'maxMemoryBytes', minPages: error.minPages, capPages }, cause: error },
      );
    }
    throw invalidModule(name, error);
  }
  let module: WebAssembly.Module;
  try {
    module = await compileBytes(rewritten);
  } catch (error) {
    throw invalidModule(name, error);
  }
  capped.set(module, capPages);
  if (hasSection(rewritten, START_SECTION)) starting.add(module);
  if (importsMemory) recycling.add(module);
  if (walked) void verdicts?.add(sha256, SHAPE_RULES).catch(() => undefined);
  return module;
}

/**
 * Refuses a module whose shape is above a bound of WASM_MODULE_BOUNDS with MepError(ERR_LIMIT)
 * naming it in `data.limit`, before the engine spends anything on it; bytes the reader cannot
 * follow are an invalid module (ERR_USAGE).
 */
function checkModuleShape(bytes: Uint8Array, name: string): void {
  try {
    readModuleShape(bytes);
  } catch (error) {
    if (!(error instanceof ModuleShapeError)) throw error;
    if (error.feature !== undefined) {
      throw new MepError(
        ErrorCode.PermissionDenied,
        `Wasm extension "${name}" is refused before it is compiled: ${error.message}, which this sandbox does not run (${FEATURE_ADVICE[error.feature]}). Guests built by mep build use none of it; rebuild this one without it.`,
        { data: { extension: name, reason: 'wasm-feature', feature: error.feature }, cause: error },
      );
    }
    if (error.limit === undefined) throw invalidModule(name, error);
    throw new MepError(
      LocalErrorCode.Limit,
      `Wasm extension "${name}" is refused before it is compiled: its ${error.message} (WASM_MODULE_BOUNDS.${error.limit}). A guest of this runtime stays far below it; rebuild it with optimisation on (e.g. wasm-opt -Oz), or split the function or module.`,
      { data: { extension: name, limit: error.limit, value: error.value, bound: error.bound }, cause: error },
    );
  }
}

/** Why each refused proposal is refused, and the compiler switch that leaves it out. */
const FEATURE_ADVICE: Readonly<Record<RefusedFeature, string>> = {
  threads: 'an atomic wait would block its thread without spending CPU; build without -matomics or -pthread',
  'exception-handling': "a catch would swallow the host's own refusals; build without -fwasm-exceptions or -mexception-handling",
  'tail-call': 'no guest needs it, and the engine runs no more than its guests need; build without -mtail-call',
};

function invalidModule(name: string, cause: unknown): MepError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new MepError(
    LocalErrorCode.Usage,
    `Wasm extension "${name}" is not a valid WebAssembly module (${detail}): rebuild it or check the artifact path.`,
    { data: { extension: name }, cause },
  );
}

/**
 * Refuses a module that is not an MEP guest (no `handle` export) or imports anything the
 * sandbox does not provide: WASI, `env`, Extism's HTTP functions, unknown host functions.
 * Accepts both ABIs: `extism` (kernel imports only, host channel attached) and the legacy
 * `mep-imports`. Returns the ABI (`extism` for a plain Extism plugin that has no channel at all:
 * it runs on the kernel alone). Throws MepError(-32012 PermissionDenied) listing the imports, or
 * MepError(ERR_USAGE). `entry` is the export calls will run (default `handle`, what makes an MEP guest).
 */
export function checkGuestModule(module: WebAssembly.Module, name: string, entry = 'handle'): GuestAbi {
  const refused: string[] = [];
  let needsMemory = false;
  for (const imp of WebAssembly.Module.imports(module)) {
    const allowed =
      (imp.kind === 'function' &&
        ((imp.module === 'extism:host/env' && EXTISM_KERNEL.has(imp.name)) ||
          (imp.module === 'extism:host/user' && HOST_FUNCTIONS.has(imp.name)))) ||
      // The memory the host itself made an import (memory-import.ts), in a module it compiled.
      (imp.kind === 'memory' && imp.module === POOLED_MEMORY_MODULE && recycling.has(module));
    if (!allowed) refused.push(`${imp.module}.${imp.name} (${imp.kind})`);
    if (imp.module === 'extism:host/user' && POINTER_FUNCTIONS.has(imp.name)) needsMemory = true;
  }
  if (refused.length > 0) {
    throw new MepError(
      ErrorCode.PermissionDenied,
      `Wasm extension "${name}" imports what the sandbox does not provide (no WASI, no filesystem, no network): ${refused.join(', ')}. Rebuild it to import only extism:host/env and the MEP host functions of wit/mep-guest.wit.`,
      { data: { extension: name, imports: refused } },
    );
  }
  checkExportKinds(module, name, entry);
  const abi = guestAbi(module) ?? 'extism';
  if (guestAbi(module) === 'extism') needsMemory = true;
  const exports = WebAssembly.Module.exports(module);
  const missing: string[] = [];
  if (!exports.some((e) => e.name === entry && e.kind === 'function')) missing.push(`function "${entry}"`);
  if (needsMemory && !exports.some((e) => e.name === 'memory' && e.kind === 'memory')) missing.push('memory "memory"');
  if (missing.length > 0) {
    const functions = exports.filter((e) => e.kind === 'function').map((e) => e.name);
    const what = entry === 'handle' ? 'an MEP guest: it does not export' : 'callable that way: it does not export';
    throw new MepError(
      LocalErrorCode.Usage,
      `Wasm extension "${name}" is not ${what} ${missing.join(' and ')} (see wit/mep-guest.wit); its functions: ${functions.join(', ') || 'none'}.`,
      { data: { extension: name, missing, exports: functions } },
    );
  }
  return abi;
}

/** The exports the host reads by name, and the kind it reads each as. */
const READ_EXPORTS: Readonly<Record<string, WebAssembly.ImportExportKind>> = {
  memory: 'memory',
  mep_host_attach: 'function',
  mep_release: 'function',
  __indirect_function_table: 'table',
};

/**
 * Refuses a module that exports a name the host reads (its memory, its entry, the host channel's
 * attach function and table, `mep_release`) as another kind: each is looked up by name, so a
 * global called `memory` ended the open in a bare TypeError, and a table called `mep_release`
 * failed the call at its end. Throws MepError(ERR_USAGE) naming the export and both kinds.
 */
function checkExportKinds(module: WebAssembly.Module, name: string, entry: string): void {
  for (const exp of WebAssembly.Module.exports(module)) {
    const wanted = exp.name === entry ? 'function' : Object.hasOwn(READ_EXPORTS, exp.name) ? READ_EXPORTS[exp.name] : undefined;
    if (wanted === undefined || exp.kind === wanted) continue;
    throw new MepError(
      LocalErrorCode.Usage,
      `Wasm extension "${name}" is not an MEP guest: it exports "${exp.name}" as a ${exp.kind}, where the host reads a ${wanted} of that name (see wit/mep-guest.wit). Rebuild it so that "${exp.name}" is its ${wanted}, or rename that export.`,
      { data: { extension: name, export: { name: exp.name, kind: exp.kind }, expected: wanted } },
    );
  }
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}
