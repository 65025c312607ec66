/**
 * The host functions a wasm guest calls during a `handle` (wit/mep-guest.wit: the MEP host
 * channel, and the Extism kernel functions the host meters or takes over), and the state of the
 * call they share: its input, its one output, the reply to a guest request, its deadline and
 * interrupt, its Extism allocations and its budget of notifications and logs. engine.ts runs the
 * calls; this file decides what a guest may do within one.
 *
 * Bounds, each a typed error: a message over `maxResponseBytes` (checked before copying), Extism
 * allocations over `maxMemoryBytes`, Extism log lines past `maxNotificationBytes` in one call
 * (notifications are counted by the transport, guest-requests.ts, which knows a streamed artifact
 * from a log), and a second output in one call (ERR_PROTOCOL: which one counts would be a guess).
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { HOST_BOUNDS, raiseAdvice } from '../../protocol/limits.ts';
import type { HostChannelFunctions } from './host-channel.ts';
import type { WasmGrants, WasmLimits } from './limits.ts';
import { createExtismConfig, createExtismVars } from './extism-kernel.ts';

/** Values of the interrupt flag the guest reads through `mep_interrupt`. */
export const Interrupt = { None: 0, Cancel: 1, Deadline: 2, Close: 3 } as const;

/**
 * Whether a call ran past its deadline: the host interrupted it at the deadline, or it returned
 * (a guest that polled and answered late) after `timeoutMs`. The one rule for both what the
 * transport answers (settle-outcome.ts: ERR_TIMEOUT) and whether its memory may be recycled
 * (engine.ts).
 */
export function ranPastDeadline(interrupt: number, elapsedMs: number, timeoutMs: number): boolean {
  return interrupt === Interrupt.Deadline || elapsedMs > timeoutMs;
}

/** Log levels of Extism guests. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Where the guest's messages go during a call. All synchronous. */
export interface GuestBridge {
  /** A notification from the guest (bytes own their buffer). */
  notify(bytes: Uint8Array): void;
  /**
   * A streamed artifact through `mep_artifact`: its JSON envelope's `envelopeBytes` bytes, then
   * its content's bytes, in one buffer (owning it). Read by the transport (guest-requests.ts).
   */
  artifact(bytes: Uint8Array, envelopeBytes: number): void;
  /** A request from the guest: its response's bytes, or null when none is available. */
  request(bytes: Uint8Array, shouldStop: () => boolean): Uint8Array | null;
  /** A log line from the guest through the Extism kernel, or from the engine itself. */
  log(level: LogLevel, message: string): void;
  /**
   * The guest's memory after a call (bytes), for a bridge that carries it as a figure (a worker
   * sends it beside the result); without it, the engine logs it as a debug line
   * (`guestMemoryLine`, engine.ts).
   */
  memory?(bytes: number): void;
}

/** The Extism kernel's call context as host functions receive it. */
export interface ExtismCallContextLike {
  alloc(size: bigint | number): bigint;
  /** The block at `address` (its whole buffer), or null when there is none. */
  read(address: bigint): { bytes(): Uint8Array } | null;
}

/** A host function in Extism's foreground form: the call context first, then wasm arguments. */
export type ExtismHostFunction = (cx: ExtismCallContextLike, ...args: never[]) => unknown;

/** The guest's side of the host during calls; see {@link createGuestIo}. */
export interface GuestIo {
  /** The MEP host channel (attached or imported). */
  readonly channel: HostChannelFunctions;
  /** Extism kernel functions the host takes over: `alloc` (metered) and `output_set` (one output). */
  readonly kernel: Record<string, ExtismHostFunction>;
  /** The Extism logger of the guest's `log_*` calls: each line counts against the budget. */
  readonly guestLog: (level: LogLevel, message: string) => void;
  /** Gives the guest its memory once instantiated (pointers are resolved against it). */
  setMemory(memory: WebAssembly.Memory | undefined): void;
  /** Starts a call with `input` (owning its buffer), due within `timeoutMs`. */
  begin(input: Uint8Array, timeoutMs: number): void;
  /** Ends the call: what it produced, refused, and the interrupt it saw; then clears the state. */
  end(): { output: Uint8Array | null; refused: MepError | null; interrupt: number };
  /** The guest's memory in bytes now (0 before it has one). */
  memoryBytes(): number;
}

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder();

/** The crash of a guest that broke the ABI (a pointer outside its memory, no memory). */
export function crash(name: string, detail: string, cause?: unknown): MepError {
  return new MepError(
    LocalErrorCode.ExtensionCrashed,
    `Wasm extension "${name}" crashed: ${detail}. Its instance was discarded; start a new session to retry, and report the bug to the extension's author if it persists.`,
    { data: { extension: name, detail }, cause },
  );
}

/** The exception-handling proposal's WebAssembly.Exception, where the engine has it. */
const WasmException = (WebAssembly as unknown as { Exception?: abstract new (...args: never[]) => object }).Exception;

/**
 * What a guest's call threw, in words: an Error's message, and for a WebAssembly exception
 * (a `throw` of the exception-handling proposal that no `try` caught), which stringifies as
 * "[object WebAssembly.Exception]", what happened and what to do.
 */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (WasmException !== undefined && error instanceof WasmException) {
    return 'it threw a WebAssembly exception that it did not catch (a `throw` of the exception-handling proposal, of a tag the host cannot read, left its export); catch it in the guest and report the failure with error_set, or build the guest without wasm exceptions';
  }
  return String(error);
}

/** Creates the host functions and call state of one guest instance. */
export function createGuestIo(options: { name: string; limits: WasmLimits; grants: WasmGrants; interruptFlag: Int32Array; bridge: GuestBridge }): GuestIo {
  const { name, limits, grants, interruptFlag, bridge } = options;
  let memory: WebAssembly.Memory | undefined;
  let input: Uint8Array = EMPTY;
  let output: Uint8Array | null = null;
  let refused: MepError | null = null;
  let reply: Uint8Array | null = null;
  let deadline = Infinity;
  let interruptSeen = 0;
  let allocated = 0;
  /** Characters of Extism log lines of this call, and HOST_BOUNDS.logLineBytes for each (the start phase counts as one call too). */
  let notified = 0;
  /** Extism blocks allocated in this call, and log lines dropped for want of one. */
  let blocks = 0;
  let droppedLogs = 0;

  const region = (ptr: number, len: number, what: string): [Uint8Array, number, number] => {
    if (memory === undefined) throw crash(name, 'the guest exports no memory "memory"');
    const mem = new Uint8Array(memory.buffer);
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
  /** Counts `size` characters of log lines; past the budget the call fails, before delivery. */
  const charge = (size: number): void => {
    notified += size;
    if (notified <= limits.maxNotificationBytes) return;
    throw new MepError(
      LocalErrorCode.Limit,
      `Wasm extension "${name}" logged more than its budget of ${limits.maxNotificationBytes} bytes in one call; the call was stopped. ${raiseAdvice('maxNotificationBytes', limits.maxNotificationBytes)}`,
      { data: { extension: name, limit: 'maxNotificationBytes', limitBytes: limits.maxNotificationBytes, sent: notified } },
    );
  };
  /** Takes the call's one output; a second is a protocol error, whichever way each came. */
  const setOutput = (bytes: Uint8Array, via: string): void => {
    if (output !== null) {
      throw new MepError(LocalErrorCode.Protocol, `Wasm extension "${name}" broke the protocol: it set a second output in one call (through ${via}), where exactly one answer is allowed. Its instance was discarded; report this to the extension's author.`, {
        data: { extension: name, reason: 'second-output', via },
      });
    }
    output = bytes;
  };
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
      setOutput(mem.slice(start, start + length), 'mep_output_copy');
      return 0;
    },
    mep_notify: (ptr: number, len: number) => {
      if (len >>> 0 > limits.maxResponseBytes) throw tooBig('notification', len >>> 0);
      const [mem, start, length] = region(ptr, len, 'mep_notify');
      bridge.notify(mem.slice(start, start + length));
    },
    mep_artifact: (envelopePtr: number, envelopeLen: number, contentPtr: number, contentLen: number) => {
      // The artifact is one message: held to the message limit as a whole, checked before copying.
      const size = (envelopeLen >>> 0) + (contentLen >>> 0);
      if (size > limits.maxResponseBytes) throw tooBig('streamed artifact', size);
      const [mem, envelopeStart, envelopeLength] = region(envelopePtr, envelopeLen, 'mep_artifact (its envelope)');
      const [, contentStart, contentLength] = region(contentPtr, contentLen, 'mep_artifact (its content)');
      const bytes = new Uint8Array(size);
      bytes.set(mem.subarray(envelopeStart, envelopeStart + envelopeLength));
      bytes.set(mem.subarray(contentStart, contentStart + contentLength), envelopeLength);
      bridge.artifact(bytes, envelopeLength);
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

  /** A kernel `log_*` function: a block past the bound (address 0, refused) is a dropped line, counted. */
  const logVia =
    (level: LogLevel): ExtismHostFunction =>
    (cx, address: bigint) => {
      const block = address === 0n ? null : cx.read(address);
      if (block === null) {
        droppedLogs++;
        return;
      }
      guestLog(level, utf8.decode(block.bytes()));
    };
  const guestLog = (level: LogLevel, message: string): void => {
    // A line is a message the host delivers and prints, however short: an empty one is not free.
    charge(message.length + HOST_BOUNDS.logLineBytes);
    bridge.log(level, message);
  };

  // Extism's `alloc` makes host ArrayBuffers the guest's memory cap does not cover: meter them.
  // Past maxExtismBlocks the SDK would hand out an address the guest sees as negative: refuse.
  const alloc = (cx: ExtismCallContextLike, size: bigint): bigint => {
    if (++blocks > HOST_BOUNDS.maxExtismBlocks) return 0n;
    allocated += Number(size);
    if (allocated > limits.maxMemoryBytes) {
      throw new MepError(
        LocalErrorCode.Limit,
        `Wasm extension "${name}" allocated more than its memory limit of ${limits.maxMemoryBytes} bytes of Extism memory in one call (${allocated} bytes asked for). ${raiseAdvice('maxMemoryBytes', limits.maxMemoryBytes, allocated)}`,
        { data: { extension: name, limit: 'maxMemoryBytes', allocated } },
      );
    }
    return cx.alloc(size);
  };
  const kernel: Record<string, ExtismHostFunction> = {
    alloc,
    // Extism's variables and config entries, bounded and metered (extism-kernel.ts).
    ...createExtismVars(name, alloc),
    config_get: createExtismConfig(grants.config ?? {}, alloc),
    // (A guest freeing address 0 frees the SDK's placeholder block 0, which nothing reads.)
    log_debug: logVia('debug'),
    log_info: logVia('info'),
    log_warn: logVia('warn'),
    log_error: logVia('error'),
    // The SDK's own output_set keeps the last block set ("last wins"); the host keeps one output.
    output_set: (cx, address: bigint, length: bigint) => {
      const size = Number(length);
      if (size > limits.maxResponseBytes) {
        refused = tooBig('response', size);
        return;
      }
      const block = cx.read(address)?.bytes();
      if (block === undefined) throw crash(name, `output_set names no Extism block (address ${address.toString(16)})`);
      if (size > block.length) throw crash(name, `output_set asks for ${size} bytes of a block of ${block.length}`);
      setOutput(size === block.length ? block : block.slice(0, size), 'output_set');
    },
  };

  /**
   * `fn`, keeping the first error it throws as the call's refusal: the call fails with it even
   * when the guest catches it (a `catch_all` of the exception-handling proposal catches what a
   * host function throws; the shape check refuses such modules, but not one compiled by the
   * caller, whose bytes it never sees) and answers anyway.
   */
  const held = <F extends (...args: never[]) => unknown>(fn: F): F =>
    ((...args: never[]) => {
      try {
        return fn(...args);
      } catch (error) {
        refused ??= error instanceof MepError ? error : crash(name, describeThrown(error), error);
        throw error;
      }
    }) as F;
  // Every host function is held, one added later too, but mep_interrupt and mep_clock_ms: they
  // never throw, and the engine polls the first.
  const heldChannel = Object.fromEntries(
    Object.entries(channel).map(([key, fn]) => [key, key === 'mep_interrupt' || key === 'mep_clock_ms' ? fn : held(fn)]),
  ) as unknown as HostChannelFunctions;
  const heldKernel = Object.fromEntries(Object.entries(kernel).map(([key, fn]) => [key, held(fn)]));

  return {
    channel: heldChannel,
    kernel: heldKernel,
    guestLog,
    setMemory(m) {
      memory = m;
    },
    begin(message, timeoutMs) {
      input = message;
      output = null;
      refused = null;
      reply = null;
      interruptSeen = 0;
      allocated = 0;
      notified = 0;
      blocks = 0;
      droppedLogs = 0;
      deadline = performance.now() + timeoutMs;
    },
    end() {
      const ended = { output, refused, interrupt: interruptSeen };
      if (droppedLogs > 0) {
        bridge.log('warn', `${droppedLogs} log lines of this call were dropped: a wasm extension has at most ${HOST_BOUNDS.maxExtismBlocks} Extism memory blocks in one call, one per log line (HOST_BOUNDS.maxExtismBlocks).`);
        droppedLogs = 0;
      }
      input = EMPTY;
      reply = null;
      output = null;
      deadline = Infinity;
      return ended;
    },
    memoryBytes: () => memory?.buffer.byteLength ?? 0,
  };
}
