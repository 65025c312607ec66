/**
 * A guest's module prepared from its file on a wasm worker thread (issue 32): read, hashed, its
 * kept shape verdict read (or the walk run), memory-capped and compiled by the same
 * `compileExtensionModule` the host runs, every check included, then posted back to the host
 * (a compiled module crosses threads without being compiled again). The early compile of
 * `mep compile` (cli/early-compile.ts) asks the thread it started first (early-thread.ts), so
 * that the main thread loads the command meanwhile: this work was 60–120 ms of its CPU for the
 * 7.4 MB Elm frontend.
 *
 * The host trusts the answer as it trusts its own compile: the worker entry is its own code, in
 * its own process. A failure comes back as an error and the host's launch then prepares the
 * module itself, reporting its own typed error (registry/launch.ts).
 */
import { createHash } from 'node:crypto';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { readRegularFileWithStat } from '../../../files/regular-file.ts';
import { identityOf, sameIdentity, type FileIdentity } from '../../../registry/module-file.ts';
import { createShapeVerdicts } from '../../../registry/shape-verdict-files.ts';
import { resolveWasmLimits, type WasmLimits } from '../limits.ts';
import { LocalErrorCode, MepError, type MepErrorCode } from '../../../protocol/errors.ts';
import { adoptCompiledModule, compileExtensionModule, hasStartFunction, memoryCapOf, recyclesMemory, type ShapeVerdicts } from '../module.ts';
import { codeCacheCompiler, type CompiledCodePlace } from './compiled-code-cache.ts';
import type { WorkerThread } from './early-thread.ts';

/** Room before the module's bytes for its rewritten memory and table limits (a few bytes longer each). */
const HEADROOM = 64;
/**
 * A module file is read this many bytes at a time, each part hashed as the next one reads (on
 * node's thread pool): the sha256 is ready with the bytes instead of 15–20 ms after them.
 */
const READ_PART_BYTES = 1024 * 1024;

/** What the host asks: the module of the file at `path`, answered on `reply`. */
export interface CompileFileMessage {
  type: 'compile-file';
  /** Absolute path of the `.wasm` file. */
  path: string;
  /** The extension's name, for errors. */
  name: string;
  limits: Pick<Partial<WasmLimits>, 'maxMemoryBytes' | 'maxModuleBytes'>;
  /** Where verdicts of the shape walk are kept (shape-verdicts.ts), if they are. */
  verdicts?: string;
  /** Where compiled code is kept (compiled-code-cache.ts), if it is; with the tier flag the host chose (wasm-tier.ts) and whether a first miss writes. */
  compiledCode?: CompiledCodePlace;
  /**
   * The file as the host's `stat` saw it (the key it offers the module under: registry/module-file.ts):
   * the bytes compiled must come from this very file, unwritten since, or the answer is a refusal.
   */
  identity?: FileIdentity;
  /** The file's bytes, read by the host from the file `identity` names, `HEADROOM` bytes into a buffer moved here. */
  bytes?: Uint8Array;
  /** With `bytes`: their sha256 (hex), taken by the host as it read them. */
  sha256?: string;
  reply: MessagePort;
}

/** A module file's bytes (after room for the cap), their sha256, and the identity of the file they came from. */
interface ModuleRead {
  bytes: Buffer;
  sha256: string;
  identity: FileIdentity;
}

/** Reads `path` whole, with room in front for the cap, hashed as it reads, and the identity of the file read. */
async function readModuleFile(path: string, maxBytes: number): Promise<ModuleRead> {
  const hash = createHash('sha256');
  // Room in front, so the memory cap rewrites the few KB before the code in place rather than
  // copying 7 MB into fresh pages (memory-cap.ts).
  const { bytes, info } = await readRegularFileWithStat(path, { what: 'the wasm module', maxBytes, limit: 'maxModuleBytes', headroom: HEADROOM, partBytes: READ_PART_BYTES, onPart: (part) => hash.update(part) });
  return { bytes, sha256: hash.digest('hex'), identity: identityOf(info) };
}

/** The module file the host's thread reads while the worker boots (readModuleOnHost), until the request takes it. */
let onHost: { path: string; maxBytes: number; read: Promise<ModuleRead | undefined> } | undefined;

/**
 * Starts reading the module file at `path` (absolute) on the host, under the default module bound,
 * for the first `compile-file` of that file (compileOnThread hands the bytes over, moved, not
 * copied): the early start does it the moment the worker thread is started (cli/early-start.ts),
 * so the read (on node's thread pool) overlaps the thread's boot instead of following it. Resolves
 * once read; never rejects: a file that cannot be read this way is read again by the worker, which
 * reports why.
 */
export function readModuleOnHost(path: string): Promise<void> {
  const maxBytes = resolveWasmLimits(path, {}).maxModuleBytes;
  const read = readModuleFile(path, maxBytes).catch(() => undefined);
  onHost = { path, maxBytes, read };
  return read.then(() => undefined);
}

/** Lets go of bytes {@link readModuleOnHost} read that no request will take (the early compile did not start). */
export function forgetModuleOnHost(): void {
  onHost = undefined;
}

/**
 * The bytes read on the host for `request`, taken once: when of its path, under its bound, and
 * from the very file its identity names (the host's stat, the key the module is offered under).
 */
async function bytesReadOnHost(request: Pick<CompileFileMessage, 'path' | 'name' | 'limits' | 'identity'>): Promise<ModuleRead | undefined> {
  const early = onHost;
  onHost = undefined;
  if (early === undefined || early.path !== request.path || request.identity === undefined) return undefined;
  if (early.maxBytes !== resolveWasmLimits(request.name, request.limits).maxModuleBytes) return undefined;
  const read = await early.read;
  return read !== undefined && sameIdentity(read.identity, request.identity) ? read : undefined;
}

/**
 * The bytes `message` asks for and their sha256: those the host read and moved here (hashed as
 * it read them, or here), else read now. Bytes from a file other than the one the host saw
 * (written or replaced in between) are refused.
 */
async function moduleBytesFor(message: CompileFileMessage): Promise<{ bytes: Buffer; sha256: string }> {
  const { path, name, limits, identity, bytes } = message;
  if (bytes !== undefined) {
    // Moved here with their buffer: the headroom is still in front of them.
    const moved = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { bytes: moved, sha256: message.sha256 ?? createHash('sha256').update(moved).digest('hex') };
  }
  const read = await readModuleFile(path, resolveWasmLimits(name, limits).maxModuleBytes);
  if (identity !== undefined && !sameIdentity(read.identity, identity)) {
    throw new MepError(LocalErrorCode.Usage, `The wasm module ${path} of "${name}" changed while it was read; run the command again.`, { data: { extension: name, file: path, reason: 'changed' } });
  }
  return read;
}

/**
 * Where the note of the compiled-code cache is kept: on the global object, since the early start
 * and the command may run two copies of this file (the sources and the command's bundle).
 */
const NOTE = Symbol.for('mep.wasm.compiledCodeNote');

/** Records what became of the compiled-code cache for the module prepared last (for {@link compiledCodeNote}). */
export function noteCompiledCode(note: string): void {
  (globalThis as { [NOTE]?: string })[NOTE] = note;
}

/** What became of the compiled-code cache for the last module a worker prepared here (`hit`, `miss, written (…)`, why not), for `--verbose`. */
export function compiledCodeNote(): string | undefined {
  return (globalThis as { [NOTE]?: string })[NOTE];
}

/** The answer on the reply port. */
export type CompileFileAnswer =
  | { ok: true; module: WebAssembly.Module; sha256: string; capPages: number; start: boolean; recycled: boolean; codeCache?: string }
  | { ok: false; error: { code?: unknown; message: string; data?: unknown } };

/** Prepares the module `message` asks for and answers on its port; never throws. */
export async function compileFile(message: CompileFileMessage): Promise<void> {
  const { name, limits, reply } = message;
  let answer: CompileFileAnswer;
  try {
    const { bytes, sha256 } = await moduleBytesFor(message);
    // A verdict written here is on disk before the answer (the command waits for the host's own).
    const writes: Promise<void>[] = [];
    const store = message.verdicts === undefined ? undefined : createShapeVerdicts(message.verdicts);
    const shapeVerdicts: ShapeVerdicts | undefined = store && { has: store.has, add: (hash, rules) => (writes[writes.length] = store.add(hash, rules)) };
    let codeCache: string | undefined;
    const compileBytes = codeCacheCompiler(message.compiledCode, (note) => (codeCache = note));
    const module = await compileExtensionModule(bytes, { name, sha256, limits, headroom: HEADROOM, ...(shapeVerdicts === undefined ? {} : { shapeVerdicts }), ...(compileBytes === undefined ? {} : { compileBytes }) });
    await Promise.all(writes);
    answer = { ok: true, module, sha256, capPages: memoryCapOf(module) as number, start: hasStartFunction(module) === true, recycled: recyclesMemory(module), ...(codeCache === undefined ? {} : { codeCache }) };
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    answer = { ok: false, error: { code: e.code, message: String(e.message ?? error), data: e.data } };
  }
  try {
    reply.postMessage(answer);
  } catch {
    // An error's data that cannot be cloned: the host prepares the module itself and reports it.
    reply.postMessage({ ok: false, error: { message: 'the module could not be prepared on the worker thread' } } satisfies CompileFileAnswer);
  }
}

/** True for a {@link CompileFileMessage}. */
export function isCompileFileMessage(message: unknown): message is CompileFileMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'compile-file';
}

/**
 * The host's side: the module of the file `request` names, prepared on `thread` and taken in as
 * compiled here (`adoptCompiledModule`). Rejects with the worker's error (its MepError's code,
 * message and data: what `compileExtensionModule` refused it with), or ERR_EXTENSION_CRASHED
 * when the thread ended first.
 */
export async function compileOnThread(thread: WorkerThread, request: Omit<CompileFileMessage, 'type' | 'reply'>): Promise<WebAssembly.Module> {
  return (await postCompileFile(thread, request)).module;
}

/**
 * {@link compileOnThread}, resolving as soon as the request is posted, with the module to come (its
 * promise handled: it may reject unseen). What awaits it is not run before the request goes out:
 * the early start awaits it so that the command's own modules, which load next on this thread,
 * do not hold back the request once the host's read is in (docs/performance-log.md, elmsmall10).
 */
export async function postCompileFile(thread: WorkerThread, request: Omit<CompileFileMessage, 'type' | 'reply'>): Promise<{ module: Promise<WebAssembly.Module> }> {
  const read = request.bytes === undefined ? await bytesReadOnHost(request) : undefined;
  const bytes = request.bytes ?? read?.bytes;
  const module = new Promise<WebAssembly.Module>((resolve, reject) => {
    const { port1: answers, port2: reply } = new MessageChannel();
    const ended = (): void => {
      answers.close();
      reject(new MepError(LocalErrorCode.ExtensionCrashed, `The wasm worker thread ended before it prepared the module of "${request.name}".`, { data: { extension: request.name } }));
    };
    answers.once('message', (answer: CompileFileAnswer) => {
      answers.close();
      if (answer.ok && answer.codeCache !== undefined) noteCompiledCode(answer.codeCache);
      if (answer.ok) return void resolve(adoptCompiledModule(answer.module, answer.sha256, answer.capPages, answer.start, answer.recycled));
      const { code, message, data } = answer.error;
      reject(new MepError(typeof code === 'number' || typeof code === 'string' ? (code as MepErrorCode) : LocalErrorCode.ExtensionCrashed, message, { data }));
    });
    answers.once('close', ended);
    thread.onEnd(ended);
    const message: CompileFileMessage = { type: 'compile-file', ...request, ...(bytes === undefined ? {} : { bytes }), ...(read === undefined ? {} : { sha256: read.sha256 }), reply };
    // The bytes' buffer is their own (the read's headroom): moved to the thread, not copied.
    thread.port.postMessage(message, bytes === undefined ? [reply] : [reply, bytes.buffer as ArrayBuffer]);
  });
  module.catch(() => undefined);
  return { module };
}
