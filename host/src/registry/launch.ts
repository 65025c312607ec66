/**
 * From an extension artifact to a live transport (Node edge): `.wasm` runs in the sandbox, a
 * `.js`/`.mjs`/`.cjs` file runs with this Node.js, anything else runs as an executable.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { readRegularFile, readRegularFileSync } from '../files/regular-file.ts';
import { basename, dirname, extname, resolve } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_BOUNDS, type ExtensionLimits } from '../protocol/limits.ts';
import { createHttpTransport } from '../transport/http.ts';
import { createProcessTransport } from '../transport/process.ts';
import { withSourceMappedErrors } from '../transport/source-map/mapped-errors.ts';
import { parseSourceMap, SourceMapLimitError } from '../transport/source-map/source-map.ts';
import type { LogSink, Transport } from '../transport/types.ts';
import type { HeldBudget } from '../framing/held-budget.ts';
import { checkModuleSize, compileExtensionModule, createModuleCache, createStartDeadline, type WasmExportCaller } from '../transport/wasm/index.ts';
import { resolveWasmLimits, type WasmLimits } from '../transport/wasm/limits.ts';
import { openNodeWasmExport } from '../transport/wasm/node/worker.ts';
import { isNodeScript, processCommandOf, processMessageLimitOf, wasmLimitsOf, withLimits } from './launch-limits.ts';
import { openWasmTransport, warmWasmLaunch } from './launch-wasm.ts';
import { processClockEnv, withGrants, type ClockRandomGrants } from './launch-grants.ts';
import { keptShapeVerdicts } from './shape-verdicts.ts';
import { moduleFileKey, takeModuleAhead } from './module-file.ts';
import { withPinnedIdentity } from './remote.ts';
import type { WasmLaunchOptions } from './launch-wasm.ts';
import type { WarmOptions } from '../transport/wasm/worker-pool.ts';

/**
 * The public runtime kinds (MEP 0.1: Extism is an engine detail, never a runtime name). `wasm`
 * and `process` run an artifact here; `http` is an extension served elsewhere, reached at its URL
 * (`path`).
 *
 * Why `http` is a kind here although architecture.md names only `process` and `wasm` ("an
 * extension served elsewhere is reached over a transport, not a new runtime"): the doc's rule is
 * kept where it matters, below the session — HTTP is only a Transport (transport/http.ts), the
 * session, rpc and conformance suite cannot tell it from the others, and no method is parsed by
 * it. But the registry must branch on where the code is, not only on how bytes travel: a remote
 * extension has no artifact to stage, hash, pin-copy or bound with memory limits; its lock pins a
 * URL and an identity instead; its credentials are a token, not an environment. That decision is
 * what a manifest's `runtime` already carries, so `runtime: "http"` (as issue 34 asks) is the
 * honest place for it, and this type is the registry's kind of launch, not an engine.
 */
export type RuntimeKind = 'process' | 'wasm' | 'http';

/** Everything needed to start one instance of an extension. */
export interface LaunchSpec {
  /** Name used in errors and logs: the extension id, or the artifact's file name. */
  name: string;
  runtime: RuntimeKind;
  /** Absolute path of the artifact (the .wasm module, the script or the executable) that runs; for `http`, the URL. */
  path: string;
  /** Extra arguments for a process extension. */
  args?: string[];
  /** The process environment: exactly these entries, nothing inherited. */
  env?: Record<string, string>;
  /** Working directory of a process extension. Default: the artifact's directory. */
  cwd?: string;
  /** How long a process may take to exit by itself once its stdin closes, before SIGTERM. Default 2 s. */
  killGraceMs?: number;
  /** Process framing. Default content-length (MEP 0.1). */
  framing?: 'content-length' | 'ndjson';
  /**
   * The sha256 the lock pins for a wasm artifact: the bytes are checked against it as they are
   * compiled, so what runs is exactly what was verified (no window between check and load).
   */
  sha256?: string;
  /**
   * The user's resource limits for either runtime (the manifest's `limits`, overridden by `mep`
   * flags); unset fields keep the defaults (256 MiB memory, 30 s per call, 64 MiB per message).
   */
  limits?: ExtensionLimits;
  /**
   * Sandbox options for a wasm extension (grants, isolation, engine-level limit overrides). Its
   * clock grant and SOURCE_DATE_EPOCH reach a process extension too (as MEP_ALLOW_CLOCK=1 or
   * SOURCE_DATE_EPOCH in its environment).
   */
  wasm?: WasmLaunchOptions;
  /**
   * The credentials and pin of an `http` extension, decided where the spec is made: an
   * installed one's bearer token, a function resolving the manifest's secret reference when a
   * session is opened (prepare.ts, verifyInstalled; so reading the lock alone needs no secret),
   * and the identity the lock pins, which every session opened on
   * it must report (registry/remote.ts); for a URL given as is, the token the user gave for it,
   * if any. When set, `MEP_HTTP_TOKEN` is not read here (a token the user gave for one server
   * never goes to an installed one's URL, nor does `mep serve`'s own to a server behind it);
   * unset, it is sent (a spec made by `specFromUrl` in a program).
   */
  remote?: { token?: string | (() => Promise<string | undefined>); identity?: { id: string; version: string } };
}

/** True for an `--extension` argument that is a URL (`http://…`, `https://…`). */
export function isExtensionUrl(argument: string): boolean {
  return /^https?:\/\//i.test(argument);
}

/** Builds a {@link LaunchSpec} for an extension served at `url` (its name: the URL without userinfo). */
export function specFromUrl(url: string, overrides: Partial<LaunchSpec> = {}): LaunchSpec {
  const shown = url.replace(/^(https?:\/\/)[^/@]*@/i, '$1');
  return { name: shown, runtime: 'http', path: url, ...overrides };
}

/** Builds a {@link LaunchSpec} for an artifact given by path (`mep describe ./x.wasm`). */
export function specFromPath(path: string, overrides: Partial<LaunchSpec> = {}): LaunchSpec {
  const absolute = resolve(path);
  const runtime: RuntimeKind = extname(absolute) === '.wasm' ? 'wasm' : 'process';
  return { name: basename(absolute), runtime, path: absolute, ...overrides };
}

/**
 * The {@link LaunchSpec} of an artifact given by path on the command line (`--extension ./x.wasm`),
 * with the limits and grants of the command's flags: the one way a command builds it, so what
 * the early start prepares (cli/early-compile.ts) is keyed as the command's session is.
 */
export function specOfFile(path: string, limits?: ExtensionLimits, grants?: ClockRandomGrants): LaunchSpec {
  return withGrants(withLimits(specFromPath(path), limits), grants);
}

/** Compiled modules by file identity, kept only while something uses them (a closed session's are freed). */
const compiled = createModuleCache(16);

/**
 * The compiled (and memory-capped) module of a wasm artifact, compiled once per process for as
 * long as the file is unchanged: the key includes its inode, size, mtime and ctime, so any write
 * to the file (which always moves ctime) compiles it afresh. A file over `maxModuleBytes` is
 * refused by its size, before it is read.
 */
async function wasmModule(spec: LaunchSpec, limits: Partial<WasmLimits>): Promise<WebAssembly.Module> {
  const { maxMemoryBytes, maxModuleBytes } = limits;
  let key: string;
  try {
    const s = await stat(spec.path);
    checkModuleSize(spec.name, s.size, resolveWasmLimits(spec.name, limits).maxModuleBytes);
    key = moduleFileKey(spec.path, s, maxMemoryBytes, spec.sha256);
  } catch (error) {
    if (error instanceof MepError) throw error;
    throw new MepError(LocalErrorCode.Usage, `Cannot read the wasm extension ${spec.path}: ${(error as Error).message}. Check the path, or build it with 'mep build'.`, { cause: error });
  }
  // A regular file only (a FIFO or a device put at the path would hang the read), within the module limit.
  const own = (): Promise<WebAssembly.Module> =>
    readRegularFile(spec.path, { what: `the wasm module of '${spec.name}'`, maxBytes: resolveWasmLimits(spec.name, limits).maxModuleBytes, limit: 'maxModuleBytes' }).then((bytes) => {
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (spec.sha256 !== undefined && actual !== spec.sha256) {
        throw new MepError(LocalErrorCode.Registry, `Refusing to run extension '${spec.name}': ${spec.path} has sha256 ${actual}, but its lock pins ${spec.sha256}. Reinstall it with 'mep install <source>'.`, {
          data: { extension: spec.name, file: spec.path, expected: spec.sha256, actual, reason: 'hash-mismatch' },
        });
      }
      // Hashed once: the pin check's hash keys the compile and the kept shape verdict (shape-verdicts.ts).
      const shapeVerdicts = keptShapeVerdicts();
      return compileExtensionModule(bytes, {
        name: spec.name,
        sha256: actual,
        ...(shapeVerdicts === undefined ? {} : { shapeVerdicts }),
        limits: { ...(maxMemoryBytes === undefined ? {} : { maxMemoryBytes }), ...(maxModuleBytes === undefined ? {} : { maxModuleBytes }) },
      });
    });
  // Compiled while the command loaded (cli/early-compile.ts) from this very file as it is now; if that failed, compiled here, reporting its own error.
  return compiled.get(key, () => takeModuleAhead(key)?.catch(own) ?? own());
}

/**
 * Gets a later {@link openTransport} of `spec` under way while the caller does other work (reads
 * its input): a wasm extension's module is compiled and, with worker isolation, a worker thread
 * instantiates it. Resolves once the rest runs off this thread. Nothing is started for a process
 * extension. Never rejects: `openTransport` reports the same failure. `warm` says which thread
 * may be prepared (WarmOptions of the pool).
 */
export async function warmTransport(spec: LaunchSpec, warm?: WarmOptions): Promise<void> {
  if (spec.runtime !== 'wasm') return;
  try {
    const limits = wasmLimitsOf(spec);
    await warmWasmLaunch(spec.name, await wasmModule(spec, limits), { ...spec.wasm, limits }, warm);
  } catch {
    // openTransport reports it.
  }
}

/**
 * The compiled module of the wasm artifact of `spec` (size-checked, memory-capped, cached), as
 * {@link openTransport} runs it, e.g. to read its ABI without compiling it twice.
 */
export function compiledWasmModule(spec: LaunchSpec): Promise<WebAssembly.Module> {
  return wasmModule(spec, wasmLimitsOf(spec));
}

/** Options of {@link openTransport}. */
export interface OpenTransportOptions {
  /**
   * Stops the opening when aborted (e.g. its client left): a wasm guest still compiling or
   * instantiating is stopped with its worker, and the promise rejects.
   */
  signal?: AbortSignal;
  /** A process extension's unfinished frames count against this budget, shared with other sessions (`mep serve`'s). */
  frameBudget?: HeldBudget;
  /** A process extension's stdin bounds. Default HOST_BOUNDS'. */
  process?: ProcessBounds;
}

/** How much a process extension may leave unread on its stdin, and for how long (`mep serve --stdin-backlog`, `--stdin-stall`). */
export interface ProcessBounds {
  maxStdinBacklogBytes?: number;
  stdinStallMs?: number;
}

/**
 * Opens a fresh transport to the extension described by `spec`. For a wasm extension, reading and
 * compiling it, and then instantiating it and running its start function (in its worker), each
 * run under the call deadline and reject with ERR_TIMEOUT past it.
 */
export async function openTransport(spec: LaunchSpec, log?: LogSink, options: OpenTransportOptions = {}): Promise<Transport> {
  if (spec.runtime === 'http') {
    const maxMessageBytes = spec.limits?.maxMessageBytes;
    // The token of the server: an installed extension's from its manifest's secret, else the
    // one the user gave for a URL; never logged (the transport names the URL only).
    const token = spec.remote ? (typeof spec.remote.token === 'function' ? await spec.remote.token() : spec.remote.token) : process.env.MEP_HTTP_TOKEN;
    const maxNotificationBytes = spec.limits?.maxNotificationBytes;
    const transport = createHttpTransport({
      url: spec.path,
      name: spec.name,
      ...(token ? { token } : {}),
      ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
      ...(maxNotificationBytes === undefined ? {} : { maxNotificationBytes }),
    });
    // An installed one must still be what its lock pins: checked on every session's handshake.
    return withPinnedIdentity(transport, spec);
  }
  if (spec.runtime === 'wasm') {
    const limits = wasmLimitsOf(spec);
    const { callTimeoutMs } = resolveWasmLimits(spec.name, limits);
    const deadline = createStartDeadline(spec.name, callTimeoutMs, options.signal);
    try {
      const module = await deadline.race(wasmModule(spec, limits));
      deadline.dispose();
      return await openWasmTransport(spec.name, module, { ...spec.wasm, limits }, log, { signal: options.signal });
    } finally {
      deadline.dispose();
    }
  }
  const { command, args, memoryLimitBytes, heapLimitBytes } = processCommandOf(spec);
  const maxMessageBytes = processMessageLimitOf(spec);
  const transport = createProcessTransport({
    name: spec.name,
    command,
    args,
    cwd: spec.cwd ?? dirname(spec.path),
    // The clock the binding keeps (mep-runtime's process builds read these two entries).
    env: { ...(spec.env ?? {}), ...processClockEnv(spec.wasm?.grants) },
    framing: spec.framing ?? 'content-length',
    maxMessageBytes,
    maxRequestBytes: maxMessageBytes,
    ...(spec.limits?.maxNotificationBytes === undefined ? {} : { maxNotificationBytes: spec.limits.maxNotificationBytes }),
    killGraceMs: spec.killGraceMs,
    ...(options.frameBudget === undefined ? {} : { frameBudget: options.frameBudget }),
    ...options.process,
    termGraceMs: spec.killGraceMs === undefined ? undefined : Math.min(1000, spec.killGraceMs),
    ...(memoryLimitBytes === undefined ? {} : { memoryLimitBytes }),
    ...(heapLimitBytes === undefined ? {} : { heapLimitBytes }),
    log,
  });
  if (!isNodeScript(spec)) return transport;
  // `mep build --runtime process` writes the bundle's map beside the script; it is read only
  // when an error has frames of this script to map.
  const name = basename(spec.path);
  return withSourceMappedErrors(transport, {
    loadMap: () => parseSourceMap(readMapFile(`${spec.path}.map`)),
    isBundle: (file) => basename(decodeURI(file.replace(/^file:\/\//, ''))) === name,
  });
}

/**
 * Starts a wasm artifact to call its export `entry` with raw bytes (`mep call --raw`): the same
 * checks (lock hash), limits and sandbox as {@link openTransport}. Throws MepError(ERR_USAGE) for
 * a process extension, which has no exports to call.
 */
export async function openExportCall(spec: LaunchSpec, entry: string, log?: LogSink): Promise<WasmExportCaller> {
  if (spec.runtime !== 'wasm') {
    throw new MepError(LocalErrorCode.Usage, `${spec.name} is a process extension; --raw calls an export of a wasm module. Call a method of it instead: mep call ${spec.name} <method>.`, { data: { extension: spec.name } });
  }
  const limits = wasmLimitsOf(spec);
  const module = await wasmModule(spec, limits);
  return openNodeWasmExport({ name: spec.name, module, entry, limits, grants: spec.wasm?.grants, isolation: spec.wasm?.isolation, log });
}

/**
 * A process entry's `.map` beside it: a regular file read only when it is not larger than the
 * host decodes (a larger one leaves errors unmapped, with a note saying why).
 */
function readMapFile(path: string): string {
  const bound = HOST_BOUNDS.maxSourceMapBytes;
  try {
    return readRegularFileSync(path, { what: 'the source map', maxBytes: bound }).toString('utf8');
  } catch (error) {
    if (error instanceof MepError && (error.data as { reason?: unknown }).reason === 'too-large') {
      throw new SourceMapLimitError(`${path} is more than the ${bound} bytes the host decodes (maxSourceMapBytes)`, 'maxSourceMapBytes');
    }
    throw error;
  }
}
