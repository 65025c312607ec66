/**
 * The guest engine: one Extism plugin instance of an MEP guest, the host functions of
 * wit/mep-guest.wit (guest-io.ts; attached through the guest's table, host-channel.ts, or
 * imported by a legacy module), and one `handle` call at a time with limits and a deadline. It runs on
 * whatever thread creates it (inline, or inside the worker of worker isolation) and never
 * rejects a call: every failure becomes a {@link RunOutcome}.
 *
 * The Extism SDK itself is injected ({@link CreateExtismPlugin}) so that `wasm.ts` stays the
 * only file importing `@extism/extism`.
 */
import { ErrorCode, isMepError, LocalErrorCode, MepError, type MepErrorCode } from '../../protocol/errors.ts';
import { attachHostChannel, defaultHostTrampoline, guestAbi } from './host-channel.ts';
import { raiseAdvice, raiseAllAdvice } from '../../protocol/limits.ts';
import { crash, createGuestIo, describeThrown, Interrupt, ranPastDeadline, type ExtismCallContextLike, type ExtismHostFunction, type GuestBridge, type LogLevel } from './guest-io.ts';
import { WASM_PAGE_BYTES, outOfMemoryAnswer, outOfMemoryAnswerBytes, type WasmGrants, type WasmLimits } from './limits.ts';
import { outOfMemoryAdvice, type CallMemory } from '../memory-advice.ts';
import { leaseMemory } from './memory-pool.ts';

export { Interrupt, ranPastDeadline, type ExtismCallContextLike, type ExtismHostFunction, type GuestBridge, type LogLevel } from './guest-io.ts';

/** The subset of an Extism plugin the engine uses. */
export interface ExtismPluginLike {
  call(funcName: [string, string], input?: Uint8Array): Promise<{ bytes(): Uint8Array } | null>;
  reset(): Promise<boolean>;
  getInstance(name?: string): Promise<WebAssembly.Instance>;
  close(): Promise<void>;
}

/** Creates a foreground Extism plugin named `main` with no WASI, paths or hosts. */
export type CreateExtismPlugin = (
  module: WebAssembly.Module,
  options: {
    functions: Record<string, Record<string, ExtismHostFunction>>;
    config: Record<string, string>;
    log: (level: LogLevel, message: string) => void;
    /** A recycled memory the module imports (memory-import.ts), to be given as `imports[module][name]`. */
    memory?: { module: string; name: string; memory: WebAssembly.Memory };
  },
) => Promise<ExtismPluginLike>;

/** Options of {@link createWasmEngine}. */
export interface WasmEngineOptions {
  name: string;
  limits: WasmLimits;
  grants: WasmGrants;
  /** The export each call runs (default `handle`; `mep call --raw` names any other). */
  entry?: string;
  /** Slot 0 is the interrupt flag ({@link Interrupt}); may be backed by a SharedArrayBuffer. */
  interruptFlag: Int32Array;
  bridge: GuestBridge;
  /**
   * The compiled host-channel trampoline (host-channel.ts), for platforms that forbid compiling
   * wasm at run time (workerd). Default: compiled here once per thread. Without one a portable
   * guest runs degraded (no progress, secrets, interrupts, clock or randomness) and a warning is logged.
   */
  hostTrampoline?: WebAssembly.Module;
}

/** A failure as plain data, so it can cross a thread boundary. */
export interface SerializedError {
  code: MepErrorCode;
  message: string;
  data?: unknown;
}

/** How one `handle` call ended. */
export type RunOutcome =
  | { ok: true; output: Uint8Array | null; interrupt: number; elapsedMs: number }
  | {
      ok: false;
      error: SerializedError;
      /** True for a failure the guest reported itself (`error_set`): the instance is still sound. */
      guestError: boolean;
      interrupt: number;
      elapsedMs: number;
    };

/** One guest instance. */
export interface WasmEngine {
  /** Runs `handle` with `input` (which must own its buffer). Never rejects. */
  call(input: Uint8Array, timeoutMs: number): Promise<RunOutcome>;
  /**
   * Lets the guest drop what it kept of its last call (a PDK guest keeps the message it read, so
   * that freeing a big one is not on the answer's path), through its `mep_release` export: for a
   * host that has the answer and can let the guest work meanwhile. Never rejects; a guest that
   * fails in it is not trusted again (the next call fails as a crash). Nothing without the export.
   */
  release(): Promise<void>;
  close(): Promise<void>;
}

const EMPTY = new Uint8Array(0);

/**
 * A call whose input is at least this big is followed by the guest's `mep_release` when the host
 * has its answer: the guest frees the message it read (a big IR takes tens to hundreds of
 * milliseconds) off the answer's path — in a worker while the host reads the answer, inline once
 * the host's thread is idle (runner.ts). Smaller messages are freed when the next call starts,
 * which costs a ping nothing.
 */
export const RELEASE_MIN_BYTES = 256 * 1024;

/**
 * The debug line the engine logs after every `handle` call: the guest's linear memory then
 * (`guest memory: <bytes> bytes after handle`). Wasm memory never shrinks, so this is the
 * instance's peak so far, what a user compares with the `maxMemoryBytes` limit.
 */
export const GUEST_MEMORY_LOG = /^guest memory: (\d+) bytes after (\S+)$/;

/** That line for a memory of `bytes`. */
export const guestMemoryLine = (bytes: number): string => `guest memory: ${bytes} bytes after handle`;

/** Instantiates `module` (already checked by `checkGuestModule`) with the MEP host functions. */
export async function createWasmEngine(
  module: WebAssembly.Module,
  options: WasmEngineOptions,
  createPlugin: CreateExtismPlugin,
): Promise<WasmEngine> {
  const { name, limits, grants, bridge } = options;
  const entry = options.entry ?? 'handle';
  const capBytes = Math.floor(limits.maxMemoryBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES;
  const io = createGuestIo(options);
  const { channel, kernel } = io;

  // A legacy module imports the channel from extism:host/user; a portable one gets it attached.
  const legacy = guestAbi(module) === 'mep-imports';
  const functions: Record<string, Record<string, ExtismHostFunction>> = { 'extism:host/env': kernel };
  if (legacy) {
    functions['extism:host/user'] = Object.fromEntries(
      Object.entries(channel).map(([fn, impl]) => [fn, (_cx: ExtismCallContextLike, ...args: number[]) => impl(...args)]),
    ) as Record<string, ExtismHostFunction>;
  }
  let plugin: Awaited<ReturnType<CreateExtismPlugin>>;
  let instance: WebAssembly.Instance;
  // A module the host rewrote runs on a memory from this thread's pool (memory-pool.ts).
  const lease = leaseMemory(module, capBytes / WASM_PAGE_BYTES);
  try {
    plugin = await createPlugin(module, { functions, config: { ...(grants.config ?? {}) }, log: io.guestLog, ...(lease.import === undefined ? {} : { memory: lease.import }) });
    instance = await plugin.getInstance();
  } catch (error) {
    // A start function or a data segment may have written some of it: not recycled.
    lease.spoil();
    // A trap or stack overflow in its start function, a data or element segment out of bounds:
    // V8's bare RuntimeError ("unreachable") named neither the extension nor what failed.
    if (isMepError(error)) throw error;
    throw crash(name, `it failed while it was instantiated, before any call: ${describeThrown(error)} (in its start function, or a data or element segment that does not fit its memory or table)`, error);
  }
  // checkGuestModule refused an export "memory" of another kind; what is not a memory is no memory.
  const memory = instance.exports.memory instanceof WebAssembly.Memory ? instance.exports.memory : undefined;
  // The memory the instance exports is the one leased, or the lease is not trusted with it.
  if (lease.import !== undefined && memory !== undefined && memory !== lease.import.memory) lease.spoil();
  io.setMemory(memory);
  if (!legacy && instance.exports.mep_host_attach !== undefined) {
    const trampoline = options.hostTrampoline ?? defaultHostTrampoline();
    try {
      if (trampoline === null) throw new Error('this platform forbids compiling the host-channel trampoline at run time; pass hostTrampoline');
      attachHostChannel(instance, channel, trampoline);
    } catch (error) {
      // The guest still runs, through the Extism kernel alone: say what it loses.
      bridge.log('warn', `wasm extension "${name}" runs without the MEP host channel (${describeThrown(error)}): no progress, secret.resolve, interrupts, clock or randomness, and input and output move 8 bytes per host call.`);
    }
  }

  const memoryBytes = io.memoryBytes;
  const releases = typeof instance.exports.mep_release === 'function';
  /** Why the instance is not trusted any more (it failed in `mep_release`, or it was closed), if it is not. */
  let broken: MepError | undefined;
  /** Whether a call or a release is running in the instance. */
  let running = false;

  // QuickJS reports a failed allocation as a JS error the guest answers with; at (or near) the
  // cap that is the memory limit speaking, and the instance is not worth keeping.
  const nearCap = (): boolean => memoryBytes() >= capBytes * 0.75;
  /** The guest's memory when the current call began (its memory at the failure is its peak). */
  let callStartBytes = memoryBytes();
  const measured = (): CallMemory => ({ limitBytes: limits.maxMemoryBytes, startBytes: callStartBytes, peakBytes: memoryBytes() });
  const exhausted = (guestMessage: string, answerBytes?: number): MepError => {
    const data = { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes(), callStartMemoryBytes: callStartBytes, guestMessage };
    if (answerBytes === undefined) {
      return new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" ran out of memory at its limit of ${limits.maxMemoryBytes} bytes (it reported: ${guestMessage}). ${outOfMemoryAdvice(measured())}`, { data });
    }
    // The guest ran out while writing an answer it measured: it needs what it held plus room for
    // the text twice (the writer's buffer grows by doubling, and while it is copied the old and
    // the new buffer both exist), and the message limit must let the answer through too.
    const memory = { limit: 'maxMemoryBytes' as const, current: limits.maxMemoryBytes, needed: memoryBytes() + 2 * answerBytes };
    const tooBigToo = answerBytes > limits.maxResponseBytes;
    const advice = raiseAllAdvice(tooBigToo ? [memory, { limit: 'maxMessageBytes', current: limits.maxResponseBytes, needed: answerBytes }] : [memory]);
    const also = tooBigToo ? `, above its message size limit of ${limits.maxResponseBytes} bytes too` : '';
    return new MepError(
      LocalErrorCode.Limit,
      `Wasm extension "${name}" ran out of memory at its limit of ${limits.maxMemoryBytes} bytes while writing an answer of at least ${answerBytes} bytes${also}. ${advice}`,
      { data: { ...data, answerBytesAtLeast: answerBytes, limits: tooBigToo ? ['maxMemoryBytes', 'maxMessageBytes'] : ['maxMemoryBytes'] } },
    );
  };

  const classify = (error: unknown): { error: MepError; guestError: boolean } => {
    if (isMepError(error)) return { error, guestError: false };
    const message = describeThrown(error);
    // The SDK reports `error_set` only through this message prefix (no error type or code).
    const guestPrefix = 'Plugin-originated error: ';
    if (error instanceof Error && !(error instanceof WebAssembly.RuntimeError) && message.startsWith(guestPrefix)) {
      const guestMessage = message.slice(guestPrefix.length);
      // What the guest said is part of its answer: held to the answer's size limit, not forwarded whole.
      if (guestMessage.length > limits.maxResponseBytes) {
        const size = guestMessage.length;
        return {
          guestError: false,
          error: new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" failed with an error message (error_set) of ${size} characters, above its message size limit of ${limits.maxResponseBytes} bytes; the message was dropped. ${raiseAdvice('maxResponseBytes', limits.maxResponseBytes, size)}`, {
            data: { extension: name, limit: 'maxResponseBytes', size },
          }),
        };
      }
      // At the cap QuickJS may fail to build even the error (the guest then reports `null`): that is the limit too.
      const speechless = /^\s*(null|undefined|)\s*$/.test(guestMessage) && nearCap();
      if (outOfMemoryAnswer(guestMessage) !== undefined || speechless) return { guestError: false, error: exhausted(speechless ? 'no message: it could not allocate one' : (guestMessage.split('\n')[0] as string)) };
      return {
        guestError: true,
        error: new MepError(ErrorCode.ExtensionFailure, `Wasm extension "${name}" failed: ${guestMessage}`, {
          data: { extension: name, guestMessage },
        }),
      };
    }
    if (memoryBytes() >= capBytes) {
      return {
        guestError: false,
        error: new MepError(
          LocalErrorCode.Limit,
          `Wasm extension "${name}" ran out of memory at its limit of ${limits.maxMemoryBytes} bytes (${message}). ${outOfMemoryAdvice(measured())}`,
          { data: { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes(), callStartMemoryBytes: callStartBytes }, cause: error },
        ),
      };
    }
    return { guestError: false, error: crash(name, message, error) };
  };

  /** The outcome of a `handle` that returned: its answer, unless a limit says otherwise. */
  /** A failed call's outcome (made once per instance: a named closure per call costs a defineProperty under tsx). */
  const failedWith = (error: MepError, interrupt: number, elapsedMs: number): RunOutcome => ({ ok: false, error: serialize(error), guestError: false, interrupt, elapsedMs });
  const settle = (bytes: Uint8Array | null, refused: MepError | null, interrupt: number, elapsedMs: number): RunOutcome => {
    if (refused !== null) return failedWith(refused, interrupt, elapsedMs);
    if (bytes !== null && bytes.length > limits.maxResponseBytes) {
      return failedWith(new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" produced a response of ${bytes.length} bytes, above its message size limit of ${limits.maxResponseBytes}. ${raiseAdvice('maxResponseBytes', limits.maxResponseBytes, bytes.length)}`, { data: { extension: name, limit: 'maxResponseBytes', size: bytes.length } }), interrupt, elapsedMs);
    }
    if (memoryBytes() > capBytes) {
      // Only possible for a module that did not go through compileExtensionModule.
      return failedWith(new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" grew its memory to ${memoryBytes()} bytes, above its limit of ${limits.maxMemoryBytes}: compile it with compileExtensionModule so the cap is enforced. ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes)}`, { data: { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes() } }), interrupt, elapsedMs);
    }
    // The guest's allocator failed at the cap and the guest answered with an internal error.
    if (nearCap() && outOfMemoryAnswer(bytes) !== undefined) return failedWith(exhausted(outOfMemoryAnswer(bytes) as string, outOfMemoryAnswerBytes(bytes)), interrupt, elapsedMs);
    return { ok: true, output: bytes !== null && bytes.length > 0 ? bytes : null, interrupt, elapsedMs };
  };
  /** The outcome of a `handle` that threw; a guest told its output was refused may fail the call itself: the refusal is the cause. */
  const failed = (thrown: unknown, refused: MepError | null, interrupt: number, elapsedMs: number): RunOutcome => {
    const { error, guestError } = refused !== null ? { error: refused, guestError: false } : classify(thrown);
    return { ok: false, error: serialize(error), guestError, interrupt, elapsedMs };
  };

  return {
    async call(message: Uint8Array, timeoutMs: number): Promise<RunOutcome> {
      if (broken !== undefined) return { ok: false, error: serialize(broken), guestError: false, interrupt: 0, elapsedMs: 0 };
      const input = message.byteOffset === 0 && message.byteLength === message.buffer.byteLength ? message : message.slice();
      const started = performance.now();
      callStartBytes = memoryBytes();
      io.begin(input, timeoutMs);
      let extismOutput: { bytes(): Uint8Array } | null = null;
      let thrown: { error: unknown } | undefined;
      running = true;
      try {
        // A plugin created from a bare Module names it "0" (transport/wasm.ts).
        extismOutput = await plugin.call(['0', entry], input);
      } catch (error) {
        thrown = { error };
      }
      running = false;
      const { output, refused, interrupt } = io.end();
      const elapsedMs = performance.now() - started;
      const outcome = thrown === undefined ? settle(output ?? extismOutput?.bytes() ?? null, refused, interrupt, elapsedMs) : failed(thrown.error, refused, interrupt, elapsedMs);
      // A trap, a deadline or a limit may leave the memory anywhere: it is not recycled. A guest
      // that polled and returned past its deadline (or its close) answered ok here, yet the
      // runtime ends it as timed out (settle-outcome.ts): not a clean close either.
      if ((!outcome.ok && !outcome.guestError) || interrupt === Interrupt.Close || ranPastDeadline(interrupt, elapsedMs, timeoutMs)) lease.spoil();
      // After a trap or a limit too: the memory the instance reached is what the user needs then.
      if (memory !== undefined) {
        const bytes = memory.buffer.byteLength;
        if (bridge.memory !== undefined) bridge.memory(bytes);
        else bridge.log('debug', guestMemoryLine(bytes));
      }
      // Extism 1.0.3 fails on the 16,384th call of a plugin unless its blocks are reset.
      await plugin.reset();
      return outcome;
    },
    async release(): Promise<void> {
      if (!releases || broken !== undefined) return;
      running = true;
      try {
        await plugin.call(['0', 'mep_release'], EMPTY);
      } catch (error) {
        lease.spoil();
        broken = crash(name, `it failed while releasing its last message (${describeThrown(error)})`, error);
      }
      running = false;
      await plugin.reset();
    },
    async close(): Promise<void> {
      io.setMemory(undefined);
      // Closed while a call runs (a kill): its memory is the call's.
      if (running) lease.spoil();
      broken ??= crash(name, 'it was closed');
      await plugin.close();
      lease.end();
    },
  };
}

/** Plain-data form of an error for outcomes. */
export function serialize(error: MepError): SerializedError {
  const out: SerializedError = { code: error.code, message: error.message };
  if (error.data !== undefined) out.data = error.data;
  return out;
}
