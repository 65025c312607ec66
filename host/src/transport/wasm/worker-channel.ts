/**
 * The shared-memory channel between a wasm transport and its worker: one SharedArrayBuffer per
 * worker thread that carries the interrupt flag, wake-ups, and — on the fast path — the call
 * itself and its result, so a small call costs at most two `Atomics.notify`s (none between
 * two polling threads) instead of two `postMessage` hops through both event loops.
 *
 * Layout: Int32 slots (below), two Float64s (the elapsed time, the guest's memory), then a data area of
 * {@link CHANNEL_DATA_BYTES} bytes that holds the input of a call, then its output. A call or
 * result that does not fit (or a failed outcome) goes through `postMessage` instead, with its
 * buffer transferred; the slots still say so, in order.
 *
 * The host writes a command and bumps CMD_SEQ; the worker, listening in `Atomics.wait`, runs it,
 * writes the result and bumps RESULT_SEQ, which the host awaits with `Atomics.waitAsync` (the
 * host thread never blocks); either side is signalled only when it sleeps. Both sides first poll
 * for tens of µs at most, as a {@link SpinPolicy} allows, so back-to-back calls skip both
 * wake-ups. RESULT_POSTED counts the notifications, logs and guest requests the worker posted
 * during the call, so the host delivers all of them before the response. The guest's memory
 * after each call (the engine's `GUEST_MEMORY_LOG` line) travels as a figure beside the result,
 * sparing a message per call, and the line's encoding and decoding.
 *
 * Flow control: the worker posts notifications, logs and guest requests as they happen, but
 * never more than {@link FLOW_WINDOW_BYTES} (or {@link FLOW_WINDOW_MESSAGES}) ahead of what the
 * host has handled, which the host acknowledges in FLOW_BYTES and FLOW_COUNT. A guest flooding
 * logs is slowed to the host's pace instead of piling its messages up in the host's port; and a
 * host whose receiver is behind (a disk writing streamed artifacts) withholds the acknowledgements
 * until it caught up, which blocks the guest in its next host call (the deadline still ends it).
 */
import type { RunOutcome } from './engine.ts';

/**
 * Slots, in groups 128 bytes apart (two cache lines, whatever the buffer's alignment), so the word
 * one side polls shares no cache line with what the other side writes before it publishes: a
 * poller reading a line the writer is filling makes the line move between the cores at every
 * store, where it now moves once per call. Each side's sequence sits with the flag saying whether
 * that side sleeps on it, so a signal nobody waits for is skipped ({@link postCommand},
 * {@link writeResult}).
 */
const GROUP = 32;
/** Slot of the interrupt flag the guest polls (`mep_interrupt`); the guest reads slot 0. */
export const FLAG_INTERRUPT = 0;
/** Slot of the wake-up sequence a waiting guest request watches. */
export const FLAG_WAKE = 1;
/** Bytes (mod 2^32) and messages of notifications, logs and guest requests the host has handled. */
const FLOW_BYTES = 2;
const FLOW_COUNT = 3;
/** Slot the host bumps after writing a command (the worker polls it). */
export const CMD_SEQ = GROUP;
/** 1 while the worker sleeps (or is about to) in `Atomics.wait` on CMD_SEQ. */
const WORKER_WAITING = GROUP + 1;
const CMD = 2 * GROUP;
const CMD_LENGTH = CMD + 1;
const CMD_TIMEOUT = CMD + 2;
/** Slot the worker bumps after writing a result. */
export const RESULT_SEQ = 3 * GROUP;
/** Slot naming the command (its CMD_SEQ) the published result answers (the host polls it). */
export const RESULT_FOR = RESULT_SEQ + 1;
/** How many `Atomics.waitAsync`s of the host wait on RESULT_SEQ now. */
const HOST_WAITERS = RESULT_SEQ + 2;
const RESULT_KIND = 4 * GROUP;
const RESULT_LENGTH = RESULT_KIND + 1;
const RESULT_INTERRUPT = RESULT_KIND + 2;
const RESULT_POSTED = RESULT_KIND + 3;
/** Float64s: the call's elapsed time, the guest's memory after it (bytes; -1 when not sent). */
const FIGURES_BYTE = RESULT_KIND * 4 + 16;
const DATA_BYTE = 5 * GROUP * 4;

/** Bytes of a call or an output that travel through the channel itself. */
export const CHANNEL_DATA_BYTES = 64 * 1024;

/** Commands from host to worker. */
export const Command = {
  /** Run `handle` with the input in the data area. */
  Call: 1,
  /** A `call` message was posted: take it from the event loop. */
  CallPosted: 2,
  /** Drop the engine, stop listening, answer `released`. */
  Leave: 3,
  /** Drop the engine and instantiate a fresh one of the same guest, answer `ready` (or `init-error`). */
  Renew: 4,
} as const;

/** How the worker answered. */
const ResultKind = { Output: 1, NoOutput: 2, Posted: 3 } as const;

/** A channel view. */
export type Channel = Int32Array;

/** Allocates a channel. */
export function createChannel(): Channel {
  return new Int32Array(new SharedArrayBuffer(DATA_BYTE + CHANNEL_DATA_BYTES));
}

/** The views of each channel, made once per thread rather than per call. */
const views = new WeakMap<Channel, { data: Uint8Array; figures: Float64Array }>();
const viewsOf = (channel: Channel): { data: Uint8Array; figures: Float64Array } => {
  let made = views.get(channel);
  if (made === undefined) views.set(channel, (made = { data: new Uint8Array(channel.buffer, DATA_BYTE, CHANNEL_DATA_BYTES), figures: new Float64Array(channel.buffer, FIGURES_BYTE, 2) }));
  return made;
};
const data = (channel: Channel): Uint8Array => viewsOf(channel).data;
/** [elapsed ms, guest memory bytes or -1]. */
const figures = (channel: Channel): Float64Array => viewsOf(channel).figures;

/**
 * Host: sends a command (with `input` in the data area for a call); the worker wakes at once.
 * Returns its sequence, and whether the worker was awake (polling or running: nobody to wake),
 * so a quick answer is worth polling for. A worker that is awake is not signalled at all:
 * `Atomics.notify` takes a lock all threads of the process share, even when nobody waits.
 */
export function postCommand(channel: Channel, command: number, input?: Uint8Array, timeoutMs = 0): { seq: number; workerAwake: boolean } {
  if (input !== undefined) data(channel).set(input);
  channel[CMD] = command;
  channel[CMD_LENGTH] = input?.length ?? 0;
  channel[CMD_TIMEOUT] = Math.min(timeoutMs, 0x7fffffff);
  const seq = Atomics.add(channel, CMD_SEQ, 1) + 1;
  // Read after the bump, as the worker sets it before it waits: one of the two sees the other.
  if (Atomics.load(channel, WORKER_WAITING) === 0) return { seq, workerAwake: true };
  Atomics.notify(channel, CMD_SEQ);
  return { seq, workerAwake: false };
}

/** {@link postCommand}'s sequence alone. */
export const sendCommand = (channel: Channel, command: number, input?: Uint8Array, timeoutMs = 0): number => postCommand(channel, command, input, timeoutMs).seq;

/** A gap this long between two polls means the thread lost its CPU: polling only delays the other side then (ms). */
const PREEMPTED_MS = 0.01;
/** Most waits in a row that sleep at once after polling failed. */
export const SPIN_BACKOFF_MAX = 64;

/**
 * When a thread polls the channel before it sleeps on it: a cross-thread wake-up costs tens of µs
 * on a virtual machine (several times a small call), a short poll none when the other side answers
 * within it. A poll that catches what it waits for keeps polling on; one that polls in vain (the
 * other side was slow, or the thread lost its CPU — on a crowded machine polling takes the CPU the
 * other thread needs) makes the next 1, 2, 4… up to {@link SPIN_BACKOFF_MAX} waits sleep at once,
 * so a slow peer or a busy machine costs at most one poll in that many waits; each catch halves the
 * backoff again.
 *
 * Waits come in two kinds, each with its own bound and its own backoff: those whose peer was awake
 * when it was signalled (the signal woke nobody: the peer polls or runs, and answers within µs
 * unless it is slow), and those whose peer was asleep (it must be woken and scheduled first). With
 * one backoff for both, a slow phase (V8 still compiling, a busy minute) made the waits for a
 * sleeping peer fail, which stopped the polls that keep the peer awake, so every later peer slept
 * too: the two threads never left that state, and every call paid two wake-ups (the worker ping
 * took 15 µs in some processes and 100 µs in others, for the life of the process).
 */
export interface SpinPolicy {
  /** Polls `ready` for up to the bound of its kind of wait, unless backing off; true when it became true. */
  spin(ready: () => boolean, peerAwake: boolean): boolean;
  /**
   * What the last wait of that kind took in the end (ms; an upper bound will do). After a wait
   * that skipped polling, at most the bound is a catch a poll would have made — the peer is quick
   * again — and the backoff ends there, instead of sleeping through up to
   * {@link SPIN_BACKOFF_MAX} more waits after a busy moment (each a cross-thread wake-up); see
   * createBackoff for when such evidence is not believed. After any other wait it changes nothing.
   */
  took(peerAwake: boolean, ms: number): void;
  /** Per kind of wait so far: polls that caught, polls in vain, and waits that skipped polling. */
  readonly stats: Readonly<Record<'awake' | 'asleep', SpinStats>>;
}

/** Counts of a {@link SpinPolicy}'s waits of one kind. */
export interface SpinStats {
  caught: number;
  missed: number;
  skipped: number;
}

/** One kind of wait: polls for up to `spinMs` unless backing off, and learns what skipped waits took. */
interface Backoff {
  spin(ready: () => boolean): boolean;
  took(ms: number): void;
}

/**
 * Polls for up to `spinMs` unless backing off; the backoff of one kind of wait. A skipped wait
 * that took at most the bound ends the backoff (the peer is quick again), unless the last poll
 * resumed so missed all the same: then the peer is quick but the machine crowded (the threads
 * lose their CPUs, and polling takes the CPU the peer needs), and skipped waits are not believed
 * again until a poll catches.
 */
function createBackoff(spinMs: number, stats: SpinStats): Backoff {
  let skip = 0;
  let backoff = 0;
  /** Whether the last wait skipped polling (only then does what it took teach something). */
  let skipped = false;
  /** Whether quick skipped waits end the backoff, and whether the current poll was resumed by one. */
  let believed = true;
  let resumed = false;
  const caught = (): true => {
    // Halved, not cleared: a lucky catch amid failures does not resume polling every wait.
    backoff >>= 1;
    stats.caught++;
    believed = true;
    resumed = false;
    return true;
  };
  const took = (ms: number): void => {
    if (!skipped || !believed || ms > spinMs) return;
    skipped = false;
    skip = 0;
    backoff >>= 1;
    resumed = true;
  };
  const spin = (ready: () => boolean): boolean => {
    skipped = false;
    if (skip > 0) {
      skip--;
      stats.skipped++;
      skipped = true;
      return false;
    }
    let last = performance.now();
    const until = last + spinMs;
    for (;;) {
      if (ready()) return caught();
      const now = performance.now();
      if (now >= until || now - last > PREEMPTED_MS) break;
      last = now;
    }
    // One more look: what arrived while the thread was off its CPU (the gap that ended the poll),
    // or as the bound was reached, is a catch, not a reason to sleep through the next waits (on a
    // crowded machine a poll is often cut short so).
    if (ready()) return caught();
    if (resumed) believed = false;
    resumed = false;
    backoff = Math.min(backoff * 2 || 1, SPIN_BACKOFF_MAX);
    skip = backoff;
    stats.missed++;
    return false;
  };
  return { spin, took };
}

/** A {@link SpinPolicy} polling for up to `awakeMs` for a peer that was awake, `asleepMs` for one that was woken. */
export function createSpinPolicy(bounds: { awakeMs: number; asleepMs: number }): SpinPolicy {
  const stats = { awake: { caught: 0, missed: 0, skipped: 0 }, asleep: { caught: 0, missed: 0, skipped: 0 } };
  const awake = createBackoff(bounds.awakeMs, stats.awake);
  const asleep = createBackoff(bounds.asleepMs, stats.asleep);
  return { stats, spin: (ready, peerAwake) => (peerAwake ? awake : asleep).spin(ready), took: (peerAwake, ms) => (peerAwake ? awake : asleep).took(ms) };
}

/**
 * Worker: waits for the command after `handled`: polls for it as `spin` allows — `hostAwake` says
 * whether publishing the last result woke the host — then blocks in `Atomics.wait`, so an idle
 * worker burns no CPU once its poll ended.
 */
export function awaitCommand(channel: Channel, handled: number, spin?: SpinPolicy, hostAwake = false): { seq: number; command: number; input: Uint8Array; timeoutMs: number } {
  if (Atomics.load(channel, CMD_SEQ) === handled) spin?.spin(() => Atomics.load(channel, CMD_SEQ) !== handled, hostAwake);
  let seq = Atomics.load(channel, CMD_SEQ);
  while (seq === handled) {
    // Said before the wait checks the sequence: a host bumping it meanwhile sees the flag.
    Atomics.store(channel, WORKER_WAITING, 1);
    Atomics.wait(channel, CMD_SEQ, handled);
    Atomics.store(channel, WORKER_WAITING, 0);
    seq = Atomics.load(channel, CMD_SEQ);
  }
  const command = channel[CMD] as number;
  const input = command === Command.Call ? data(channel).slice(0, channel[CMD_LENGTH]) : new Uint8Array(0);
  return { seq, command, input, timeoutMs: channel[CMD_TIMEOUT] as number };
}

/** Most bytes of notifications, logs and guest requests in flight from a worker to its host. */
export const FLOW_WINDOW_BYTES = 4 * 1024 * 1024;
/** Most such messages in flight (small ones cost the host more per byte). */
export const FLOW_WINDOW_MESSAGES = 256;

/** The size a flow-controlled message counts for (bytes, or characters of a log line); -1 for others. */
export function flowSize(message: { type: string; bytes?: ArrayBuffer; message?: string }): number {
  if (message.type === 'notify' || message.type === 'request' || message.type === 'artifact') return (message.bytes as ArrayBuffer).byteLength;
  if (message.type === 'log') return (message.message as string).length;
  return -1;
}

/**
 * Host: `count` flow-controlled messages of `size` bytes in all were handled; a worker waiting
 * for room wakes. Withholding it is how the host holds a worker back (its window stays full).
 */
export function acknowledgeFlow(channel: Channel, size: number, count = 1): void {
  Atomics.add(channel, FLOW_BYTES, size | 0);
  Atomics.add(channel, FLOW_COUNT, count);
  Atomics.notify(channel, FLOW_COUNT);
}

/** The worker's side of the flow window: what it posted, against what the host acknowledged. */
export interface FlowWindow {
  /** Blocks (in slices, checking `stop`) until a message of `size` fits the window, then counts it. */
  reserve(size: number, stop: () => boolean): void;
}

/** Longest single wait for room in the window (ms); `stop` is checked between waits. */
const FLOW_WAIT_SLICE_MS = 50;

/** Worker: the flow window over `channel`, counting from what was acknowledged so far. */
export function createFlowWindow(channel: Channel): FlowWindow {
  let postedBytes = Atomics.load(channel, FLOW_BYTES) >>> 0;
  let postedCount = Atomics.load(channel, FLOW_COUNT) >>> 0;
  return {
    reserve(size, stop) {
      for (;;) {
        const count = Atomics.load(channel, FLOW_COUNT);
        // Differences mod 2^32: the counters wrap, what is in flight never comes near 4 GiB.
        const bytesAhead = (postedBytes - (Atomics.load(channel, FLOW_BYTES) >>> 0)) >>> 0;
        const messagesAhead = (postedCount - (count >>> 0)) >>> 0;
        // An empty window always takes one message, however big (each is capped by maxResponseBytes).
        if (messagesAhead === 0 || (bytesAhead + size <= FLOW_WINDOW_BYTES && messagesAhead < FLOW_WINDOW_MESSAGES)) break;
        if (stop()) break;
        Atomics.wait(channel, FLOW_COUNT, count, FLOW_WAIT_SLICE_MS);
      }
      postedBytes = (postedBytes + size) >>> 0;
      postedCount = (postedCount + 1) >>> 0;
    },
  };
}

/** True when `outcome` can be written into the channel instead of posted. */
export function fitsChannel(outcome: RunOutcome): boolean {
  return outcome.ok && (outcome.output?.length ?? 0) <= CHANNEL_DATA_BYTES;
}

/**
 * Worker: publishes the result of command `seq` — the outcome itself (with the guest's
 * `memoryBytes` after the call, if given) when {@link fitsChannel}, else "posted". True when the
 * host was awake (polling for it, or about to look: the signal woke nobody); false when it was woken.
 */
export function writeResult(channel: Channel, seq: number, outcome: RunOutcome | 'posted', posted: number, memoryBytes = -1): boolean {
  const figuresOf = figures(channel);
  figuresOf[1] = -1;
  if (outcome === 'posted' || !outcome.ok) channel[RESULT_KIND] = ResultKind.Posted;
  else {
    channel[RESULT_INTERRUPT] = outcome.interrupt;
    figuresOf[0] = outcome.elapsedMs;
    figuresOf[1] = memoryBytes;
    if (outcome.output === null) channel[RESULT_KIND] = ResultKind.NoOutput;
    else {
      data(channel).set(outcome.output);
      channel[RESULT_LENGTH] = outcome.output.length;
      channel[RESULT_KIND] = ResultKind.Output;
    }
  }
  channel[RESULT_POSTED] = posted;
  // Atomic, so a host that sees `seq` here also sees the result written above.
  Atomics.store(channel, RESULT_FOR, seq);
  Atomics.add(channel, RESULT_SEQ, 1);
  // Read after the bump, as the host counts itself in before it waits (awaitResult).
  if (Atomics.load(channel, HOST_WAITERS) === 0) return true;
  Atomics.notify(channel, RESULT_SEQ);
  return false;
}

/** `Atomics.waitAsync` (ES2024; Node 16+, Chromium, Safari 16.4). */
interface AtomicsWithWaitAsync {
  waitAsync(array: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/**
 * Host: calls `then` once the worker published a result after RESULT_SEQ read `bumps` (or it was
 * woken otherwise: a released worker), through the event loop, without blocking the thread. The
 * host counts itself among the waiters first, so {@link writeResult} signals it.
 */
export function awaitResult(channel: Channel, bumps: number, then: () => void): void {
  Atomics.add(channel, HOST_WAITERS, 1);
  const waiting = (Atomics as unknown as AtomicsWithWaitAsync).waitAsync(channel, RESULT_SEQ, bumps);
  const woken = (): void => {
    Atomics.sub(channel, HOST_WAITERS, 1);
    then();
  };
  if (waiting.async) void waiting.value.then(woken);
  else woken();
}

/**
 * Host: reads the published result: the outcome, or null when it comes as a `result` message, and
 * the guest's memory after the call, if it was sent.
 */
export function readResult(channel: Channel): { outcome: RunOutcome | null; posted: number; memoryBytes?: number } {
  const posted = channel[RESULT_POSTED] as number;
  const kind = channel[RESULT_KIND];
  if (kind === ResultKind.Posted) return { outcome: null, posted };
  const output = kind === ResultKind.Output ? data(channel).slice(0, channel[RESULT_LENGTH] as number) : null;
  const figuresOf = figures(channel);
  const outcome: RunOutcome = { ok: true, output, interrupt: channel[RESULT_INTERRUPT] as number, elapsedMs: figuresOf[0] as number };
  const memoryBytes = figuresOf[1] as number;
  return memoryBytes < 0 ? { outcome, posted } : { outcome, posted, memoryBytes };
}
