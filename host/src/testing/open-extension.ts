/**
 * `openExtension`: the one call a behaviour test needs. It takes what the author has at hand —
 * the TypeScript entry (built here with `mep build`'s pipeline, to wasm or to a process script),
 * a built artifact (`.wasm`, `.mjs`), wasm bytes or a compiled module, or the extension object of
 * `defineExtension` (run in this realm) — and returns a started session with typed operations
 * whose errors carry the guest's stack in the author's sources. Plain JavaScript: it runs under
 * `node:test`, uvu or vitest with no TypeScript loader.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isExtension, type Extension } from '../../../guest-pdk/src/define-extension.ts';
import { ErrorCode, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { Method } from '../protocol/index.ts';
import type { ClaimSet, CompileParams, CompileResult, GenerateResult, InitializeResult, IrDistribution, LogParams, ProgressParams, TransformResult, ValidateResult } from '../protocol/index.ts';
import type { JsonText } from '../protocol/json-text.ts';
import type { ExtensionLimits } from '../protocol/limits.ts';
import { openTransport, specFromPath, type LaunchSpec } from '../registry/launch.ts';
import { requestTimeoutOf, wasmLimitsOf } from '../registry/launch-limits.ts';
import { openWasmTransport } from '../registry/launch-wasm.ts';
import { createStageRecorder, processMemoryReport, profileLines, type CallProfile, type StageRecorder } from '../session/call-stages.ts';
import { createSession, type CallOptions, type Session } from '../session/session.ts';
import type { Transport } from '../transport/types.ts';
import { GUEST_MEMORY_LOG } from '../transport/wasm/engine.ts';
import { resolveWasmLimits, type WasmGrants } from '../transport/wasm/limits.ts';
import { createInProcessTransport } from './in-process-transport.ts';
import { withManifest } from './manifest-options.ts';

/** What {@link openExtension} can open. */
export type ExtensionUnderTest = string | URL | Uint8Array | ArrayBuffer | WebAssembly.Module | Extension;

/** Options of {@link openExtension}; every one has a default. */
export interface OpenExtensionOptions {
  /** For a TypeScript entry: build to `wasm` (default) or `process`. Checked against a built artifact's kind. */
  runtime?: 'wasm' | 'process';
  /** Memory, call timeout and message size, as in extension.json `limits` (defaults: the manifest's, else 256 MiB, 30 s, 64 MiB). */
  limits?: ExtensionLimits;
  /** What a wasm guest may use beyond the sandbox (config, clock, randomness); by default what extension.json grants. */
  grants?: WasmGrants;
  /**
   * The extension.json whose `limits`, `permissions.clock`/`random` and `env` apply, as
   * `mep install` applies them (a folder or the file); by default the one of the entry's project
   * (its folder or the nearest parent, up to the first package.json); `false` for none. The
   * test's own `limits`, `grants` and `env` win over it, member by member.
   */
  manifest?: string | URL | false;
  /** A process extension's whole environment (default the manifest's `env`, else empty, as under `mep`). */
  env?: Record<string, string>;
  /** Wasm isolation: `worker` (default; a runaway guest is killed at its deadline) or `inline`. */
  isolation?: 'worker' | 'inline';
  /** Folder relative paths are taken from (default: the process's working directory). */
  cwd?: string;
  /** Type-check a TypeScript entry before building it (default false: tests check behaviour). */
  typecheck?: boolean;
  /** A pinned claim set the extension's initialize result must agree with. */
  claims?: ClaimSet;
  /** Answers the extension's `secret.resolve`; without it every request is denied (-32012). */
  resolveSecret?: (reference: string) => string | Promise<string>;
  /**
   * After each operation, print where it spent its time (the extension's progress stages) and the
   * wasm guest's peak memory: `true` on stderr, or each line to this function.
   */
  verbose?: boolean | ((line: string) => void);
}

/** The params of an IR operation a test passes: the IR (an object or a `JsonText`), the rest optional. */
export interface IrInput {
  ir: IrDistribution | JsonText;
  /** The input's IR version (validate, transform), when the extension needs it. */
  irVersion?: string;
  options?: Record<string, unknown>;
  [member: string]: unknown;
}

/** A started extension under test. `close()` (or `await using`) ends it and removes what was built. */
export interface TestExtension extends AsyncDisposable {
  /** The session underneath, for anything the shortcuts do not cover. */
  readonly session: Session;
  /** The negotiated initialize result (its `extension` and `capabilities`). */
  readonly initialize: InitializeResult;
  /** How it runs. */
  readonly runtime: 'wasm' | 'process' | 'in-process';
  /** The artifact that runs (a built one is in a temporary folder), if it is a file. */
  readonly artifact: string | undefined;
  /** Every `morphir.log` the extension sent, in order. */
  readonly logs: readonly LogParams[];
  /** Every `morphir.progress` the extension sent, in order. */
  readonly progress: readonly ProgressParams[];
  /** The runtime's own lines: a process's stderr, a wasm guest's Extism log. */
  readonly stderr: readonly string[];
  /** Where the last operation spent its time (its progress stages) and, in wasm, the guest's peak memory. */
  readonly lastCall: CallProfile | undefined;
  /** `morphir.backend.generate`; `target` defaults to the extension's only target, `options` to `{}`. */
  generate(params: IrInput & { target?: string }, options?: CallOptions): Promise<GenerateResult>;
  /** `morphir.frontend.compile`. */
  compile(params: CompileParams, options?: CallOptions): Promise<CompileResult>;
  /** `morphir.validator.validate`; `options` defaults to `{}`. */
  validate(params: IrInput, options?: CallOptions): Promise<ValidateResult>;
  /** `morphir.transform.transform`; `options` defaults to `{}`. */
  transform(params: IrInput, options?: CallOptions): Promise<TransformResult>;
  /** Any request by its method name, answered unchecked (e.g. to see how it refuses one). */
  call(method: string, params?: unknown, options?: CallOptions): Promise<unknown>;
  /** Shutdown, exit, and nothing left running or on disk. Idempotent. */
  close(): Promise<void>;
}

const SOURCE = /\.(c|m)?tsx?$/;

/** Where `target` is on disk, when it is a path. */
function pathOf(target: ExtensionUnderTest, cwd: string): string | undefined {
  if (typeof target === 'string') return resolve(cwd, target);
  if (target instanceof URL) return fileURLToPath(target);
  return undefined;
}

/** Builds a TypeScript entry into a fresh temporary folder with `mep build`'s pipeline. */
async function build(entry: string, runtime: 'wasm' | 'process', options: OpenExtensionOptions, cwd: string): Promise<{ artifact: string; folder: string }> {
  // Loaded only here: the build toolchain (esbuild, binaryen) is not needed to open an artifact.
  const { buildGuest } = await import('../../../build/guest/index.ts');
  const folder = await mkdtemp(join(tmpdir(), 'mep-testing-'));
  const artifact = join(folder, `${basename(entry).replace(SOURCE, '')}.${runtime === 'wasm' ? 'wasm' : 'mjs'}`);
  try {
    await buildGuest({ entry, outFile: artifact, runtime, cwd, typecheck: options.typecheck === true });
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
  return { artifact, folder };
}

/** The transport and what is known about `target`, built first when it is a TypeScript entry. */
async function transportOf(target: ExtensionUnderTest, given: OpenExtensionOptions, stderr: string[]): Promise<{ transport: Transport; runtime: TestExtension['runtime']; artifact?: string; folder?: string; spec?: LaunchSpec }> {
  const cwd = given.cwd ?? process.cwd();
  const log = (entry: { message: string }): void => void stderr.push(entry.message);
  const { options } = await withManifest(given, isExtension(target) ? undefined : pathOf(target, cwd), cwd);
  if (isExtension(target)) {
    if (options.runtime !== undefined) throw new MepError(LocalErrorCode.Usage, `openExtension: an extension object runs in this realm; to run it as ${options.runtime}, pass the path of its TypeScript entry instead.`);
    return { transport: createInProcessTransport(target), runtime: 'in-process' };
  }
  const path = pathOf(target, cwd);
  if (path === undefined) {
    if (options.runtime === 'process') throw new MepError(LocalErrorCode.Usage, 'openExtension: wasm bytes or a WebAssembly.Module run as wasm; pass a path for a process extension.');
    const module = target instanceof ArrayBuffer ? new Uint8Array(target) : (target as Uint8Array | WebAssembly.Module);
    const spec: LaunchSpec = { name: 'extension.wasm', runtime: 'wasm', path: '', ...(options.limits ? { limits: options.limits } : {}) };
    const transport = await openWasmTransport(spec.name, module, { limits: wasmLimitsOf(spec), grants: options.grants, isolation: options.isolation }, log);
    return { transport, runtime: 'wasm', spec };
  }
  let artifact = path;
  let folder: string | undefined;
  if (SOURCE.test(path)) ({ artifact, folder } = await build(path, options.runtime ?? 'wasm', options, cwd));
  const runtime = extname(artifact) === '.wasm' ? 'wasm' : 'process';
  if (options.runtime !== undefined && options.runtime !== runtime) {
    throw new MepError(LocalErrorCode.Usage, `openExtension: ${path} is a ${runtime} extension, not ${options.runtime}; pass its TypeScript entry to build it for ${options.runtime}.`);
  }
  const spec = specFromPath(artifact, {
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.env ? { env: options.env } : {}),
    wasm: { ...(options.grants ? { grants: options.grants } : {}), ...(options.isolation ? { isolation: options.isolation } : {}) },
  });
  try {
    return { transport: await openTransport(spec, log), runtime, artifact, ...(folder ? { folder } : {}), spec };
  } catch (error) {
    if (folder) await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** The target to generate for when a test names none: the extension's only one. */
function defaultTarget(session: Session): string {
  const targets = session.initializeResult?.capabilities.backend?.targets ?? [];
  if (targets.length === 1) return targets[0] as string;
  throw new MepError(LocalErrorCode.Usage, `generate: extension ${session.extension} has ${targets.length === 0 ? 'no backend targets' : `several targets (${targets.join(', ')})`}; pass { target }.`);
}

/**
 * Opens and starts an extension for a test.
 *
 * @example
 * import { openExtension, sampleIr } from 'mep-runtime/testing';
 * const extension = await openExtension('src/extension.ts', { runtime: 'wasm' });
 * try {
 *   const result = await extension.generate({ ir: sampleIr() });
 * } finally {
 *   await extension.close();
 * }
 */
export async function openExtension(target: ExtensionUnderTest, options: OpenExtensionOptions = {}): Promise<TestExtension> {
  const stderr: string[] = [];
  const opened = await transportOf(target, options, stderr);
  const requestTimeoutMs = opened.spec ? requestTimeoutOf(opened.spec) : options.limits?.callTimeoutMs;
  const session = createSession({ transport: opened.transport, ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}), ...(options.claims ? { claims: options.claims } : {}) });
  const logs: LogParams[] = [];
  const progress: ProgressParams[] = [];
  session.onLog((entry) => logs.push(entry));
  session.onProgress((entry) => progress.push(entry));
  let recorder: StageRecorder | undefined;
  let lastCall: CallProfile | undefined;
  session.onProgress((entry) => recorder?.progress(entry));
  const print = options.verbose === true ? (line: string): void => void process.stderr.write(`${line}\n`) : options.verbose || undefined;
  const memoryLimit = opened.runtime === 'wasm' && opened.spec ? resolveWasmLimits(opened.spec.name, wasmLimitsOf(opened.spec)).maxMemoryBytes : undefined;
  /** Runs one operation, recording its stages; the engine's memory line is in `stderr` by the time it answers. */
  const timed = async <T>(operation: () => Promise<T>): Promise<T> => {
    const mine = createStageRecorder();
    const seen = stderr.length;
    recorder = mine;
    mine.start();
    try {
      return await operation();
    } finally {
      for (const line of stderr.slice(seen)) {
        const memory = GUEST_MEMORY_LOG.exec(line);
        if (memory) mine.memory(Number(memory[1]));
      }
      if (recorder === mine) recorder = undefined;
      lastCall = mine.finish();
      if (print) for (const line of profileLines(lastCall, memoryLimit)) print(line);
      const processMemory = print ? processMemoryReport(opened.transport) : undefined;
      if (print && processMemory) print(processMemory);
    }
  };
  session.peer.onRequest(Method.SecretResolve, async (params: unknown) => {
    const reference = String((params as { reference?: unknown } | undefined)?.reference);
    if (!options.resolveSecret) throw new MepError(ErrorCode.PermissionDenied, `secret.resolve ${reference} denied: pass resolveSecret to openExtension to answer it.`, { data: { reference, reason: 'denied' } });
    return options.resolveSecret(reference);
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      try {
        await session.close();
      } finally {
        if (opened.folder) await rm(opened.folder, { recursive: true, force: true });
      }
    })());
  let initialize: InitializeResult;
  try {
    initialize = await session.start();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    session,
    initialize,
    runtime: opened.runtime,
    artifact: opened.artifact,
    logs,
    progress,
    stderr,
    get lastCall() {
      return lastCall;
    },
    generate: (params, callOptions) => timed(() => session.generate({ ...params, ir: params.ir, target: params.target ?? defaultTarget(session), options: params.options ?? {} }, callOptions)),
    compile: (params, callOptions) => timed(() => session.compile(params, callOptions)),
    validate: (params, callOptions) => timed(() => session.validate({ ...params, ir: params.ir, options: params.options ?? {} }, callOptions)),
    transform: (params, callOptions) => timed(() => session.transform({ ...params, ir: params.ir, options: params.options ?? {} }, callOptions)),
    call: (method, params, callOptions) => timed(() => session.peer.request(method, params, callOptions)),
    close,
    [Symbol.asyncDispose]: close,
  };
}
