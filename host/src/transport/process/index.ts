/**
 * The process transport: an extension as a child process speaking framed JSON-RPC on stdio,
 * put together from its phases — spawn (spawn-child.ts), stdin (stdin-writer.ts), stdout framing
 * (stdout-reader.ts), stderr (stderr-reader.ts), and its end (teardown.ts, exit-report.ts).
 *
 * MEP 0.1, Native executable transport and Security: stdin carries host messages, stdout
 * protocol frames only, stderr human-readable logs. The host chooses the working directory
 * explicitly, passes no inherited environment, and treats stdout as untrusted input.
 *
 * No child survives its session: each runs in a PID namespace of its own where the system allows
 * it (containment.ts: `setsid` does not leave it), and always in a process group of its own (process-group.ts), and
 * the end of a session ends the whole group — graceful (stdin closed), then SIGTERM, then SIGKILL
 * — and lets go of its pipes, so a grandchild holding them keeps nothing waiting. The host's
 * 'exit' hook SIGKILLs the groups left; a CLI ends them on SIGINT/SIGTERM too. The end of the
 * child's stdout ends the session at once: nothing more can arrive.
 */
import { createContentLengthDecoder, encodeContentLength } from '../../framing/content-length.ts';
import type { FrameDecoder } from '../../framing/frame-decoder.ts';
import { stringifyMessage } from '../../framing/json-text.ts';
import { createNdjsonDecoder, encodeNdjson } from '../../framing/ndjson.ts';
import type { MepError } from '../../protocol/errors.ts';
import { DEFAULT_LIMITS, HOST_BOUNDS } from '../../protocol/limits.ts';
import { createTransportEvents } from '../events.ts';
import { endOfContained } from './containment.ts';
import { exitError } from './exit-report.ts';
import { createInboundLimits } from './inbound-limits.ts';
import { createMemoryProbe } from './proc-memory.ts';
import type { ProcessTransport, ProcessTransportOptions } from './options.ts';
import { checkWorkingDirectory, spawnChild, spawnError } from './spawn-child.ts';
import { readStderr } from './stderr-reader.ts';
import { createStdinWriter } from './stdin-writer.ts';
import { readStdout } from './stdout-reader.ts';
import { createTeardown } from './teardown.ts';

export type { ProcessTransport, ProcessTransportOptions } from './options.ts';

/** How long after its stdout ended a child may take to exit before it is stopped. */
const EOF_GRACE_MS = 250;
/** How long after its exit a child's pipes may stay open (held by a grandchild) before its end is reported. */
const CLOSE_GRACE_MS = 250;
/** How often the memory of an extension under an address-space cap is read (ms). */
const MEMORY_LOOK_MS = 100;

/**
 * Spawn an extension and connect to it. Synchronous problems (no cwd) throw MepError(ERR_USAGE);
 * a command that cannot start closes the transport with MepError(ERR_USAGE).
 *
 * @example
 * const transport = createProcessTransport({ name: 'ext', command: process.execPath, args: ['ext.mjs'], cwd: dir });
 * try { … } finally { await transport.close() }
 */
export function createProcessTransport(options: ProcessTransportOptions): ProcessTransport {
  const { name, command } = options;
  checkWorkingDirectory(name, options.cwd);
  const ndjson = options.framing === 'ndjson';
  const decoder: FrameDecoder = ndjson
    ? createNdjsonDecoder({ name, maxLineBytes: options.maxMessageBytes })
    : createContentLengthDecoder({ name, maxBodyBytes: options.maxMessageBytes });

  const events = createTransportEvents((error) => stderr.logLine(`host listener failed on a message from ${name}: ${String(error)}`, 'error'));
  const { child, wrapped, groupOnly } = spawnChild(options);
  const stderr = readStderr(name, child.stderr, options.log);
  const teardown = createTeardown(child, { killGraceMs: options.killGraceMs ?? 2000, termGraceMs: options.termGraceMs ?? 1000, beforeRelease: () => stderr.settle(CLOSE_GRACE_MS) });
  // Its memory, read from /proc of the extension itself (proc-memory.ts): under an address-space
  // cap at the start of each request and every MEMORY_LOOK_MS, so that a crash at the cap is told
  // a raise sized from what it reached; for --verbose, when asked (memory()).
  const probe = createMemoryProbe(child.pid, wrapped, () => teardown.exited);
  let callStartBytes: number | undefined;
  const looking = options.memoryLimitBytes === undefined ? undefined : setInterval(() => probe.read(), MEMORY_LOOK_MS);
  looking?.unref();
  if (groupOnly !== undefined) note(`runs in its process group only, not a PID namespace: ${groupOnly}; a process it starts that leaves the group (setsid) can outlive the session.`);

  /** A note of the host's about this extension (shown with --verbose), not kept as its stderr. */
  function note(message: string): void {
    try {
      options.log?.({ level: 'debug', message, source: name });
    } catch {
      // A failing log sink must not break the connection.
    }
  }

  function fail(error: MepError): void {
    if (events.closed) return;
    events.emitClose(error);
    void teardown.stop(false);
  }
  const frames = options.frameBudget === undefined ? undefined : { account: options.frameBudget.account(), maxBytes: options.frameBudget.maxBytes };
  events.onClose(() => {
    stdin.dispose();
    frames?.account.release();
  });
  const inbound = createInboundLimits(name, options.maxNotificationBytes ?? DEFAULT_LIMITS.maxNotificationBytes);

  const stdin = createStdinWriter(child.stdin, {
    name,
    encode: ndjson ? encodeNdjson : encodeContentLength,
    maxRequestBytes: options.maxRequestBytes ?? DEFAULT_LIMITS.maxMessageBytes,
    isClosed: () => events.closed || teardown.stopping,
    maxBacklogBytes: options.maxStdinBacklogBytes ?? HOST_BOUNDS.maxStdinBacklogBytes,
    stallMs: options.stdinStallMs ?? HOST_BOUNDS.stdinStallMs,
    onHold: (held) => stdout.hold('stdin backlog', held),
    onStall: fail,
  });

  // No more messages can come: the session ends now, not at the next call's deadline. A child
  // that is exiting says how in a moment (exit code, stderr), a better report; one that is not
  // is stopped, and its close says why.
  let eofTimer: ReturnType<typeof setTimeout> | undefined;
  let stoppedAtEof = false;
  const stdout = readStdout(child.stdout, {
    name,
    decoder,
    ...(frames ? { frames } : {}),
    isClosed: () => events.closed,
    onMessage(message, body) {
      const over = inbound.received(message, body);
      if (over === undefined) events.emitMessage(message);
      else fail(over);
    },
    // Header lines past a frame's needs, blank lines: read like notifications, counted with them.
    onOverhead(bytes) {
      const over = inbound.skipped(bytes, 'frame headers or blank lines that carry no message');
      if (over !== undefined) fail(over);
    },
    onError: fail,
    onEnd() {
      if (events.closed || teardown.stopping || teardown.exited) return;
      eofTimer = setTimeout(() => {
        if (events.closed || teardown.stopping || teardown.exited) return;
        stoppedAtEof = true;
        void teardown.stop(false);
      }, EOF_GRACE_MS);
    },
  });

  let finalizeTimer: ReturnType<typeof setTimeout> | undefined;
  let finalized = false;
  function finalize(code: number | null, signal: NodeJS.Signals | null): void {
    if (finalized) return;
    finalized = true;
    clearTimeout(finalizeTimer);
    clearTimeout(eofTimer);
    clearInterval(looking);
    stderr.flush();
    // Whatever it left running in its group goes too (a no-op when close() already stopped it).
    void teardown.stop(false);
    if (events.closed) return;
    const error = exitError({ name, pid: child.pid, code, signal, stderr: stderr.record, heap: stderr.heap.trace(), stoppedAtEof, memoryLimitBytes: options.memoryLimitBytes, heapLimitBytes: options.heapLimitBytes, ...addressSpace() });
    if (error !== undefined) {
      events.emitClose(error);
      return;
    }
    try {
      decoder.end();
    } catch (truncated) {
      events.emitClose(truncated as MepError);
      return;
    }
    events.emitClose(undefined);
  }

  /** What the extension's address space was when its last request began (or at the first look) and at its peak. */
  function addressSpace(): { addressSpace?: { startBytes: number; peakBytes: number } } {
    const last = probe.last;
    return last === undefined ? {} : { addressSpace: { startBytes: callStartBytes ?? probe.first!.addressSpaceBytes, peakBytes: last.addressSpacePeakBytes } };
  }

  child.on('exit', (exitCode, exitSignal) => {
    teardown.markExited();
    clearInterval(looking);
    const { code, signal } = wrapped ? endOfContained(exitCode, exitSignal) : { code: exitCode, signal: exitSignal };
    // 'close' follows once stdout and stderr are drained; a grandchild holding them open must
    // not keep the transport open forever. A busy log sink holding stderr is not such a hold:
    // what the extension wrote before its exit is read first (settle).
    const graced = new Promise<void>((resolve) => (finalizeTimer = setTimeout(resolve, CLOSE_GRACE_MS)));
    void Promise.all([graced, stderr.settle(CLOSE_GRACE_MS)]).then(() => finalize(code, signal));
  });
  child.on('close', (exitCode, exitSignal) => {
    const { code, signal } = wrapped ? endOfContained(exitCode, exitSignal) : { code: exitCode, signal: exitSignal };
    finalize(code, signal);
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid !== undefined) return; // a failed kill() or write; 'exit' reports the outcome
    teardown.markExited();
    events.emitClose(spawnError(name, command, error));
  });

  return {
    name,
    get pid() {
      return child.pid;
    },
    send(message) {
      // Only a cap's advice is sized from it: without one, a request's send reads nothing.
      if (looking !== undefined && 'method' in message && 'id' in message) callStartBytes = probe.read()?.addressSpaceBytes ?? callStartBytes;
      stdin.write(stringifyMessage(message), 'method' in message && 'id' in message);
      inbound.sent(message);
    },
    memory: () => probe.read(),
    memoryCap:
      options.memoryLimitBytes !== undefined
        ? { kind: 'address space', bytes: options.memoryLimitBytes }
        : options.heapLimitBytes !== undefined
          ? { kind: 'V8 heap', bytes: options.heapLimitBytes }
          : undefined,
    sendRaw(body) {
      stdin.write(body);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    pause() {
      if (!events.closed) stdout.hold('peer', true);
    },
    resume() {
      if (!events.closed) stdout.hold('peer', false);
    },
    async close() {
      events.emitClose(undefined);
      await teardown.stop(true);
    },
  };
}
