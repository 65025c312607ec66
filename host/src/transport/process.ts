/**
 * The process transport: an extension as a child process speaking framed JSON-RPC on stdio.
 * The only file that imports node:child_process.
 *
 * MEP 0.1, Native executable transport and Security: stdin carries host messages, stdout
 * protocol frames only, stderr human-readable logs. The host chooses the working directory
 * explicitly, passes no inherited environment, and treats stdout as untrusted input.
 *
 * No child survives its session: each runs in a process group of its own (process-group.ts), and
 * the end of a session ends the whole group — graceful (stdin closed), then SIGTERM, then SIGKILL
 * — and lets go of its pipes, so a grandchild holding them keeps nothing waiting. The host's
 * 'exit' hook SIGKILLs the groups left; a CLI ends them on SIGINT/SIGTERM too. The end of the
 * child's stdout ends the session at once: nothing more can arrive.
 *
 * stderr is read as it comes and passed to the log sink line by line (a line is at most 16 K
 * characters); while a sink says it is busy, stderr is not read, so the extension waits. stdout
 * likewise: while the peer pauses the transport (a handler is behind on streamed artifacts), it
 * is not read, the pipe fills and the extension waits in its write (the call deadline still
 * ends it); at most one chunk already read is still delivered.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createContentLengthDecoder, encodeContentLength } from '../framing/content-length.ts';
import type { FrameDecoder } from '../framing/frame-decoder.ts';
import { parseJsonBody } from '../framing/frame-decoder.ts';
import { createLineSplitter } from '../framing/line-splitter.ts';
import { stringifyMessage } from '../framing/json-text.ts';
import { createNdjsonDecoder, encodeNdjson } from '../framing/ndjson.ts';
import { LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { DEFAULT_LIMITS, raiseAdvice } from '../protocol/limits.ts';
import { createTransportEvents } from './events.ts';
import { longDelay } from './long-timer.ts';
import { endGroup, PROCESS_GROUPS, signalGroup, trackGroup } from './process-group.ts';
import type { LogSink, Transport } from './types.ts';
import { createStderrRecord } from './stderr-record.ts';

export { endAllProcessGroups } from './process-group.ts';

/** Options for {@link createProcessTransport}. */
export interface ProcessTransportOptions {
  /** The extension's name (its id), used in every error and log entry. */
  name: string;
  /** Executable to run (an absolute path is safest: the child gets no PATH unless you pass one). */
  command: string;
  /** Arguments. */
  args?: readonly string[];
  /** Working directory; required and explicit (MEP 0.1, Security). */
  cwd: string;
  /** The child's whole environment: exactly these entries, nothing inherited. Default empty. */
  env?: Readonly<Record<string, string>>;
  /** Message framing on stdio. Default 'content-length' (MEP 0.1). */
  framing?: 'content-length' | 'ndjson';
  /** Largest incoming message in bytes. Default 64 MiB for Content-Length, 8 MiB for ndjson. */
  maxMessageBytes?: number;
  /** Largest outgoing message in bytes (the encoded JSON), refused before writing. Default 64 MiB. */
  maxRequestBytes?: number;
  /** Receives the extension's stderr, one entry per line. Without it lines are only kept for crash reports. */
  log?: LogSink;
  /** How long close() waits after ending stdin before SIGTERM. Default 2000 ms. */
  killGraceMs?: number;
  /** How long close() waits after SIGTERM before SIGKILL. Default 1000 ms. */
  termGraceMs?: number;
  /**
   * The memory cap the command runs under (a V8 heap limit, an address-space limit), in bytes:
   * named in the report of a crash, which may have been the cap.
   */
  memoryLimitBytes?: number;
}

/** A {@link Transport} to a child process. */
export interface ProcessTransport extends Transport {
  /** The child's process id (undefined when it could not be spawned). */
  readonly pid: number | undefined;
  /** Frame `body` as given and write it (conformance tests of malformed input). */
  sendRaw(body: string): void;
}

/** How long after its stdout ended a child may take to exit before it is stopped. */
const EOF_GRACE_MS = 250;
/** What Node.js prints when a script reaches its V8 heap limit (`--max-old-space-size`). */
const V8_HEAP_EXHAUSTED = /JavaScript heap out of memory|Reached heap limit|Allocation failed - process out of memory/;

function spawnError(name: string, command: string, error: NodeJS.ErrnoException): MepError {
  const hint =
    error.code === 'ENOENT'
      ? 'the file does not exist (the child gets no PATH, so give an absolute path)'
      : error.code === 'EACCES'
        ? 'it is not executable (check its permissions, or run a script through its interpreter)'
        : `the system refused (${error.code ?? error.message})`;
  return new MepError(LocalErrorCode.Usage, `Cannot start extension ${name}: ${command}: ${hint}.`, { data: { extension: name, command, errno: error.code }, cause: error });
}

/**
 * Spawn an extension and connect to it. Synchronous problems (no cwd) throw MepError(ERR_USAGE);
 * a command that cannot start closes the transport with MepError(ERR_USAGE).
 *
 * @example
 * const transport = createProcessTransport({ name: 'ext', command: process.execPath, args: ['ext.mjs'], cwd: dir });
 * try { … } finally { await transport.close() }
 */
export function createProcessTransport(options: ProcessTransportOptions): ProcessTransport {
  const { name, command, cwd } = options;
  const killGraceMs = options.killGraceMs ?? 2000;
  const termGraceMs = options.termGraceMs ?? 1000;
  if (typeof cwd !== 'string' || cwd === '' || !existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new MepError(LocalErrorCode.Usage, `Cannot start extension ${name}: the working directory ${JSON.stringify(cwd)} is not an existing directory.`, { data: { extension: name, cwd } });
  }
  const ndjson = options.framing === 'ndjson';
  const decoder: FrameDecoder = ndjson
    ? createNdjsonDecoder({ name, maxLineBytes: options.maxMessageBytes })
    : createContentLengthDecoder({ name, maxBodyBytes: options.maxMessageBytes });
  const encode = ndjson ? encodeNdjson : encodeContentLength;

  const events = createTransportEvents((error) => logLine(`host listener failed on a message from ${name}: ${String(error)}`, 'error'));
  const stderrLines = createLineSplitter();
  const stderr = createStderrRecord();
  let exited = false;
  let stopping: Promise<void> | undefined;
  let markExited!: () => void;
  const exitedPromise = new Promise<void>((resolve) => (markExited = resolve));

  // A group of its own (POSIX): what the extension starts is ended with it.
  const child = spawn(command, [...(options.args ?? [])], { cwd, env: { ...options.env }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, detached: PROCESS_GROUPS });
  if (child.pid !== undefined) trackGroup(child.pid);

  function logLine(line: string, level: 'info' | 'error' = 'info'): void {
    stderr.push(line);
    try {
      options.log?.({ level, message: line, source: name });
    } catch {
      // A failing log sink must not break the connection; the line stays in the crash record.
    }
  }

  function emitClose(error: MepError | undefined): void {
    events.emitClose(error);
  }

  function waitExit(ms: number): Promise<boolean> {
    if (exited) return Promise.resolve(true);
    const timeout = longDelay(ms, () => false);
    return Promise.race([exitedPromise.then(() => true), timeout.promise]).finally(timeout.cancel);
  }

  /** Lets go of the pipes: a grandchild holding them (out of the group, or not yet ended) keeps nothing waiting. */
  function releasePipes(): void {
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
  }

  function stop(endInputFirst: boolean): Promise<void> {
    stopping ??= (async () => {
      if (endInputFirst) {
        child.stdin.end();
        await waitExit(killGraceMs);
      }
      const pid = child.pid;
      if (pid === undefined) return;
      // The leader, and whatever it left in its group: SIGTERM, then SIGKILL.
      await endGroup(pid, termGraceMs);
      if (!exited) {
        signalGroup(pid, 'SIGKILL');
        await exitedPromise;
      }
      releasePipes();
    })();
    return stopping;
  }

  function fail(error: MepError): void {
    if (events.closed) return;
    emitClose(error);
    void stop(false);
  }

  // EPIPE and friends: writing to a child that died must not crash the host; the exit handler
  // reports the death with its exit code.
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (chunk: Buffer) => {
    if (events.closed) return;
    try {
      decoder.push(chunk, (body) => {
        const message = parseJsonBody(name, body);
        if (events.closed) return;
        events.emitMessage(message);
      });
    } catch (error) {
      fail(isMepError(error) ? error : new MepError(LocalErrorCode.Framing, `Extension ${name} sent unreadable output.`, { cause: error }));
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    for (const line of stderrLines.push(chunk)) logLine(line);
    // Back-pressure: the sink's consumer is behind, so stop reading until it drains.
    if (options.log?.busy?.() && !child.stderr.isPaused()) {
      child.stderr.pause();
      options.log.onDrain?.(() => child.stderr.resume());
    }
  });
  // No more messages can come: the session ends now, not at the next call's deadline. A child
  // that is exiting says how in a moment (exit code, stderr), a better report; one that is not
  // is stopped, and its close says why.
  let eofTimer: ReturnType<typeof setTimeout> | undefined;
  let stoppedAtEof = false;
  child.stdout.on('end', () => {
    if (events.closed || stopping || exited) return;
    eofTimer = setTimeout(() => {
      if (events.closed || stopping || exited) return;
      stoppedAtEof = true;
      void stop(false);
    }, EOF_GRACE_MS);
  });

  let finalizeTimer: ReturnType<typeof setTimeout> | undefined;
  function finalize(code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(finalizeTimer);
    clearTimeout(eofTimer);
    for (const line of stderrLines.flush()) logLine(line);
    // Whatever it left running in its group goes too (a no-op when close() already stopped it).
    void stop(false);
    if (events.closed) return;
    if (code === 0 && signal === null) {
      try {
        decoder.end();
      } catch (error) {
        emitClose(error as MepError);
        return;
      }
      emitClose(undefined);
      return;
    }
    if (stoppedAtEof) {
      emitClose(
        new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} closed its standard output while still running, so it could send no more messages; it was stopped. Check that it writes its log to stderr and never closes stdout.`, {
          data: { extension: name, pid: child.pid, reason: 'stdout-closed', exitCode: code, signal, stderr: stderr.lines() },
        }),
      );
      return;
    }
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    if (stderr.lines().some((line) => V8_HEAP_EXHAUSTED.test(line))) {
      emitClose(
        new MepError(LocalErrorCode.Limit, `Extension ${name} ran out of memory at its heap limit and exited (${how}). ${raiseAdvice('maxMemoryBytes')}`, {
          data: { extension: name, limit: 'maxMemoryBytes', pid: child.pid, exitCode: code, signal, stderr: stderr.lines() },
        }),
      );
      return;
    }
    const last = stderr.total > 0 ? ` Its last log lines: ${JSON.stringify(stderr.last(3).join(' | '))}.` : ' It wrote nothing to stderr.';
    const cap = options.memoryLimitBytes === undefined ? '' : ` It ran with its memory capped at ${options.memoryLimitBytes} bytes: if it ran out of memory, ${raiseAdvice('maxMemoryBytes', options.memoryLimitBytes).replace(/^R/, 'r')}`;
    emitClose(
      new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} exited unexpectedly (${how}).${last} Check its log, or run it by hand to reproduce.${cap}`, {
        data: { extension: name, pid: child.pid, exitCode: code, signal, stderr: stderr.lines(), ...(options.memoryLimitBytes === undefined ? {} : { memoryLimitBytes: options.memoryLimitBytes }) },
      }),
    );
  }

  child.on('exit', (code, signal) => {
    exited = true;
    markExited();
    // 'close' follows once stdout and stderr are drained; a grandchild holding them open must
    // not keep the transport open forever.
    finalizeTimer = setTimeout(() => finalize(code, signal), 250);
  });
  child.on('close', (code, signal) => finalize(code, signal));
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid !== undefined) return; // a failed kill() or write; 'exit' reports the outcome
    exited = true;
    markExited();
    emitClose(spawnError(name, command, error));
  });

  const maxRequestBytes = options.maxRequestBytes ?? DEFAULT_LIMITS.maxMessageBytes;
  function write(json: string): void {
    if (events.closed || stopping) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send to extension ${name}: its transport is closed.`, { data: { extension: name } });
    const size = Buffer.byteLength(json, 'utf8');
    if (size > maxRequestBytes) {
      // Refused before writing: the extension never sees half a message, and the session goes on.
      throw new MepError(LocalErrorCode.Limit, `A message of ${size} bytes for extension ${name} is over its message size limit of ${maxRequestBytes} bytes; nothing was sent. ${raiseAdvice('maxMessageBytes', maxRequestBytes, size)}`, {
        data: { extension: name, limit: 'maxMessageBytes', limitBytes: maxRequestBytes, size, direction: 'request' },
      });
    }
    child.stdin.write(encode(json));
  }

  return {
    name,
    get pid() {
      return child.pid;
    },
    send(message) {
      write(stringifyMessage(message));
    },
    sendRaw(body) {
      write(body);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    pause() {
      if (!events.closed) child.stdout.pause();
    },
    resume() {
      if (!events.closed) child.stdout.resume();
    },
    async close() {
      emitClose(undefined);
      await stop(true);
    },
  };
}
