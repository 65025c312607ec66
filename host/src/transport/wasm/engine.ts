/**
 * The guest engine: one Extism plugin instance of an MEP guest, the host functions of
 * wit/mep-guest.wit (attached through the guest's table, host-channel.ts, or imported by a legacy
 * module), and one `handle` call at a time with limits and a deadline. It runs on
 * whatever thread creates it (inline, or inside the worker of worker isolation) and never
 * rejects a call: every failure becomes a {@link RunOutcome}.
 *
 * The Extism SDK itself is injected ({@link CreateExtismPlugin}) so that `wasm.ts` stays the
 * only file importing `@extism/extism`.
 */
import { ErrorCode, isMepError, LocalErrorCode, MepError, type MepErrorCode } from '../../protocol/errors.ts';
import { attachHostChannel, defaultHostTrampoline, guestAbi, type HostChannelFunctions } from './host-channel.ts';
import { raiseAdvice, raiseAllAdvice } from '../../protocol/limits.ts';
import { WASM_PAGE_BYTES, outOfMemoryAnswer, outOfMemoryAnswerBytes, type WasmGrants, type WasmLimits } from './limits.ts';

/** Values of the interrupt flag the guest reads through `mep_interrupt`. */
export const Interrupt = { None: 0, Cancel: 1, Deadline: 2, Close: 3 } as const;

/** The subset of an Extism plugin the engine uses. */
export interface ExtismPluginLike {
  call(funcName: [string, string], input?: Uint8Array): Promise<{ bytes(): Uint8Array } | null>;
  reset(): Promise<boolean>;
  getInstance(name?: string): Promise<WebAssembly.Instance>;
  close(): Promise<void>;
}

/** The Extism kernel's call context as host functions receive it. */
export interface ExtismCallContextLike {
  alloc(size: bigint | number): bigint;
}

/** A host function in Extism's foreground form: the call context first, then wasm arguments. */
export type ExtismHostFunction = (cx: ExtismCallContextLike, ...args: never[]) => unknown;

/** Creates a foreground Extism plugin named `main` with no WASI, paths or hosts. */
export type CreateExtismPlugin = (
  module: WebAssembly.Module,
  options: {
    functions: Record<string, Record<string, ExtismHostFunction>>;
    config: Record<string, string>;
    log: (level: LogLevel, message: string) => void;
  },
) => Promise<ExtismPluginLike>;

/** Log levels of Extism guests. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where the guest's messages go during a call. All synchronous. */
export interface GuestBridge {
  /** A notification from the guest (bytes own their buffer). */
  notify(bytes: Uint8Array): void;
  /** A request from the guest: its response's bytes, or null when none is available. */
  request(bytes: Uint8Array, shouldStop: () => boolean): Uint8Array | null;
  /** A log line from the guest through the Extism kernel. */
  log(level: LogLevel, message: string): void;
}

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
 * The debug line the engine logs after every `handle` call: the guest's linear memory then
 * (`guest memory: <bytes> bytes after handle`). Wasm memory never shrinks, so this is the
 * instance's peak so far, what a user compares with the `maxMemoryBytes` limit.
 */
export const GUEST_MEMORY_LOG = /^guest memory: (\d+) bytes after (\S+)$/;

/** Instantiates `module` (already checked by `checkGuestModule`) with the MEP host functions. */
export async function createWasmEngine(
  module: WebAssembly.Module,
  options: WasmEngineOptions,
  createPlugin: CreateExtismPlugin,
): Promise<WasmEngine> {
  const { name, limits, grants, interruptFlag, bridge } = options;
  const entry = options.entry ?? 'handle';
  const capBytes = Math.floor(limits.maxMemoryBytes / WASM_PAGE_BYTES) * WASM_PAGE_BYTES;
  let memory: WebAssembly.Memory | undefined;
  let input: Uint8Array = EMPTY;
  let output: Uint8Array | null = null;
  let refused: MepError | null = null;
  let reply: Uint8Array | null = null;
  let deadline = Infinity;
  let interruptSeen = 0;
  let allocated = 0;

  const guestMemory = (): Uint8Array => {
    if (memory === undefined) throw crash(name, 'the guest exports no memory "memory"');
    return new Uint8Array(memory.buffer);
  };
  const region = (ptr: number, len: number, what: string): [Uint8Array, number, number] => {
    const mem = guestMemory();
    const start = ptr >>> 0;
    const length = len >>> 0;
    if (start + length > mem.byteLength) throw crash(name, `${what} points outside guest memory (${start}+${length} > ${mem.byteLength})`);
    return [mem, start, length];
  };
  const tooBig = (what: string, len: number): MepError =>
    new MepError(
      LocalErrorCode.Limit,
      `Wasm extension "${name}" produced a ${what} of ${len} bytes, above its message size limit of ${limits.maxResponseBytes}. ${raiseAdvice('maxResponseBytes', limits.maxResponseBytes, len)}`,
      { data: { extension: name, limit: 'maxResponseBytes', size: len } },
    );
  const interrupted = (): number => {
    const flag = Atomics.load(interruptFlag, 0);
    if (flag !== Interrupt.None) return (interruptSeen ||= flag);
    if (performance.now() > deadline) return (interruptSeen ||= Interrupt.Deadline);
    return 0;
  };
  const shouldStop = (): boolean => interrupted() !== 0;

  const channel: HostChannelFunctions = {
    mep_input_copy: (ptr: number, len: number) => {
      const [mem, start, length] = region(ptr, len, 'mep_input_copy');
      const n = Math.min(length, input.length);
      mem.set(n === input.length ? input : input.subarray(0, n), start);
      return n;
    },
    mep_output_copy: (ptr: number, len: number) => {
      // Checked before copying: an oversized output is refused without touching it.
      if (len >>> 0 > limits.maxResponseBytes) {
        refused = tooBig('response', len >>> 0);
        return 1;
      }
      const [mem, start, length] = region(ptr, len, 'mep_output_copy');
      output = mem.slice(start, start + length);
      return 0;
    },
    mep_notify: (ptr: number, len: number) => {
      if (len >>> 0 > limits.maxResponseBytes) throw tooBig('notification', len >>> 0);
      const [mem, start, length] = region(ptr, len, 'mep_notify');
      bridge.notify(mem.slice(start, start + length));
    },
    mep_request: (ptr: number, len: number) => {
      if (len >>> 0 > limits.maxResponseBytes) throw tooBig('request', len >>> 0);
      const [mem, start, length] = region(ptr, len, 'mep_request');
      reply = bridge.request(mem.slice(start, start + length), shouldStop);
      return reply === null ? -1 : reply.length;
    },
    mep_reply_copy: (ptr: number, len: number) => {
      if (reply === null) return 0;
      const [mem, start, length] = region(ptr, len, 'mep_reply_copy');
      const n = Math.min(length, reply.length);
      mem.set(n === reply.length ? reply : reply.subarray(0, n), start);
      return n;
    },
    mep_interrupt: () => interrupted(),
    mep_clock_ms: () => (grants.clock ? Date.now() : 0),
    mep_random_fill: (ptr: number, len: number) => {
      if (!grants.random) return 0;
      const [mem, start, length] = region(ptr, len, 'mep_random_fill');
      // getRandomValues fills at most 65536 bytes per call.
      for (let at = 0; at < length; at += 65_536) {
        crypto.getRandomValues(mem.subarray(start + at, start + Math.min(length, at + 65_536)));
      }
      return length;
    },
  };
  const kernel: Record<string, ExtismHostFunction> = {
    // Extism's `alloc` makes host ArrayBuffers the guest's memory cap does not cover: meter them.
    alloc: (cx, size: bigint) => {
      allocated += Number(size);
      if (allocated > limits.maxMemoryBytes) {
        throw new MepError(
          LocalErrorCode.Limit,
          `Wasm extension "${name}" allocated more than its memory limit of ${limits.maxMemoryBytes} bytes of Extism memory in one call. ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes)}`,
          { data: { extension: name, limit: 'maxMemoryBytes', allocated } },
        );
      }
      return cx.alloc(size);
    },
  };

  // A legacy module imports the channel from extism:host/user; a portable one gets it attached.
  const legacy = guestAbi(module) === 'mep-imports';
  const functions: Record<string, Record<string, ExtismHostFunction>> = { 'extism:host/env': kernel };
  if (legacy) {
    functions['extism:host/user'] = Object.fromEntries(
      Object.entries(channel).map(([fn, impl]) => [fn, (_cx: ExtismCallContextLike, ...args: number[]) => impl(...args)]),
    ) as Record<string, ExtismHostFunction>;
  }
  const plugin = await createPlugin(module, { functions, config: { ...(grants.config ?? {}) }, log: bridge.log });
  const instance = await plugin.getInstance();
  memory = instance.exports.memory as WebAssembly.Memory | undefined;
  if (!legacy && instance.exports.mep_host_attach !== undefined) {
    const trampoline = options.hostTrampoline ?? defaultHostTrampoline();
    try {
      if (trampoline === null) throw new Error('this platform forbids compiling the host-channel trampoline at run time; pass hostTrampoline');
      attachHostChannel(instance, channel, trampoline);
    } catch (error) {
      // The guest still runs, through the Extism kernel alone: say what it loses.
      bridge.log('warn', `wasm extension "${name}" runs without the MEP host channel (${error instanceof Error ? error.message : String(error)}): no progress, secret.resolve, interrupts, clock or randomness, and input and output move 8 bytes per host call.`);
    }
  }

  const memoryBytes = (): number => memory?.buffer.byteLength ?? 0;
  const releases = typeof instance.exports.mep_release === 'function';
  /** Why the instance is not trusted any more (it failed in `mep_release`), if it is not. */
  let broken: MepError | undefined;

  // QuickJS reports a failed allocation as a JS error the guest answers with; at (or near) the
  // cap that is the memory limit speaking, and the instance is not worth keeping.
  const nearCap = (): boolean => memoryBytes() >= capBytes * 0.75;
  const exhausted = (guestMessage: string, answerBytes?: number): MepError => {
    const data = { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes(), guestMessage };
    if (answerBytes === undefined) {
      return new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" ran out of memory at its limit of ${limits.maxMemoryBytes} bytes (it reported: ${guestMessage}). ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes)}`, { data });
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
    const message = error instanceof Error ? error.message : String(error);
    // The SDK reports `error_set` only through this message prefix (no error type or code).
    const guestPrefix = 'Plugin-originated error: ';
    if (error instanceof Error && !(error instanceof WebAssembly.RuntimeError) && message.startsWith(guestPrefix)) {
      const guestMessage = message.slice(guestPrefix.length);
      if (outOfMemoryAnswer(guestMessage) !== undefined) return { guestError: false, error: exhausted(guestMessage.split('\n')[0] as string) };
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
          `Wasm extension "${name}" ran out of memory at its limit of ${limits.maxMemoryBytes} bytes (${message}). ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes)}`,
          { data: { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes() }, cause: error },
        ),
      };
    }
    return { guestError: false, error: crash(name, message, error) };
  };

  return {
    async call(message: Uint8Array, timeoutMs: number): Promise<RunOutcome> {
      if (broken !== undefined) return { ok: false, error: serialize(broken), guestError: false, interrupt: 0, elapsedMs: 0 };
      input = message.byteOffset === 0 && message.byteLength === message.buffer.byteLength ? message : message.slice();
      output = null;
      refused = null;
      reply = null;
      interruptSeen = 0;
      allocated = 0;
      const started = performance.now();
      deadline = started + timeoutMs;
      let outcome: RunOutcome;
      try {
        // A plugin created from a bare Module names it "0" (transport/wasm.ts).
        const extismOutput = await plugin.call(['0', entry], input);
        const bytes = output ?? extismOutput?.bytes() ?? null;
        const elapsedMs = performance.now() - started;
        if (refused !== null) {
          outcome = { ok: false, error: serialize(refused), guestError: false, interrupt: interruptSeen, elapsedMs };
        } else if (bytes !== null && bytes.length > limits.maxResponseBytes) {
          outcome = { ok: false, error: serialize(tooBig('response', bytes.length)), guestError: false, interrupt: interruptSeen, elapsedMs };
        } else if (memoryBytes() > capBytes) {
          // Only possible for a module that did not go through compileExtensionModule.
          const error = new MepError(LocalErrorCode.Limit, `Wasm extension "${name}" grew its memory to ${memoryBytes()} bytes, above its limit of ${limits.maxMemoryBytes}: compile it with compileExtensionModule so the cap is enforced. ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes)}`, { data: { extension: name, limit: 'maxMemoryBytes', memoryBytes: memoryBytes() } });
          outcome = { ok: false, error: serialize(error), guestError: false, interrupt: interruptSeen, elapsedMs };
        } else if (nearCap() && outOfMemoryAnswer(bytes) !== undefined) {
          // The guest's allocator failed at the cap and the guest answered with an internal error.
          outcome = { ok: false, error: serialize(exhausted(outOfMemoryAnswer(bytes) as string, outOfMemoryAnswerBytes(bytes))), guestError: false, interrupt: interruptSeen, elapsedMs };
        } else {
          outcome = { ok: true, output: bytes !== null && bytes.length > 0 ? bytes : null, interrupt: interruptSeen, elapsedMs };
        }
      } catch (thrown) {
        // A guest told its output was refused may fail the call itself: the refusal is the cause.
        const { error, guestError } = refused !== null ? { error: refused as MepError, guestError: false } : classify(thrown);
        outcome = { ok: false, error: serialize(error), guestError, interrupt: interruptSeen, elapsedMs: performance.now() - started };
      } finally {
        input = EMPTY;
        reply = null;
        output = null;
        deadline = Infinity;
        // After a trap or a limit too: the memory the instance reached is what the user needs then.
        if (memory !== undefined) bridge.log('debug', `guest memory: ${memory.buffer.byteLength} bytes after handle`);
      }
      // Extism 1.0.3 fails on the 16,384th call of a plugin unless its blocks are reset.
      await plugin.reset();
      return outcome;
    },
    async release(): Promise<void> {
      if (!releases || broken !== undefined) return;
      try {
        await plugin.call(['0', 'mep_release'], EMPTY);
      } catch (error) {
        broken = crash(name, `it failed while releasing its last message (${error instanceof Error ? error.message : String(error)})`, error);
      }
      await plugin.reset();
    },
    async close(): Promise<void> {
      memory = undefined;
      await plugin.close();
    },
  };
}

function crash(name: string, detail: string, cause?: unknown): MepError {
  return new MepError(
    LocalErrorCode.ExtensionCrashed,
    `Wasm extension "${name}" crashed: ${detail}. Its instance was discarded; start a new session to retry, and report the bug to the extension's author if it persists.`,
    { data: { extension: name, detail }, cause },
  );
}

/** Plain-data form of an error for outcomes. */
export function serialize(error: MepError): SerializedError {
  const out: SerializedError = { code: error.code, message: error.message };
  if (error.data !== undefined) out.data = error.data;
  return out;
}
