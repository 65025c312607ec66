/**
 * The process transport: an extension as a child process speaking framed JSON-RPC on stdio.
 * The only file that imports node:child_process.
 *
 * MEP 0.1, Native executable transport and Security: stdin carries host messages, stdout
 * protocol frames only, stderr human-readable logs. The host chooses the working directory
 * explicitly, passes no inherited environment, and treats stdout as untrusted input.
 *
 * No child survives the host: every live child is in a module-level set, and a process 'exit'
 * hook SIGKILLs what is left (synchronously, the only thing an 'exit' hook can do). That hook runs
 * on a normal exit and on process.exit(); it cannot run when the host itself is SIGKILLed or
 * dies from a signal it does not handle, so a CLI should turn SIGINT/SIGTERM into process.exit().
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
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
import type { LogSink, Transport } from './types.ts';
import { createStderrRecord } from './stderr-record.ts';

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
}

/** A {@link Transport} to a child process. */
export interface ProcessTransport extends Transport {
  /** The child's process id (undefined when it could not be spawned). */
  readonly pid: number | undefined;
  /** Frame `body` as given and write it (conformance tests of malformed input). */
  sendRaw(body: string): void;
}

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;
function track(child: ChildProcessWithoutNullStreams): void {
  live.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const c of live) {
      try {
        c.kill('SIGKILL');
      } catch {
        // Nothing more can be done while the host is exiting.
      }
    }
  });
}

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

  const child = spawn(command, [...(options.args ?? [])], { cwd, env: { ...options.env }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  track(child);

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
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    return Promise.race([exitedPromise.then(() => true), timeout]).finally(() => clearTimeout(timer));
  }

  function stop(endInputFirst: boolean): Promise<void> {
    stopping ??= (async () => {
      if (endInputFirst) {
        child.stdin.end();
        if (await waitExit(killGraceMs)) return;
      }
      if (!exited) child.kill('SIGTERM');
      if (await waitExit(termGraceMs)) return;
      if (!exited) child.kill('SIGKILL');
      await exitedPromise;
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
  });

  let finalizeTimer: ReturnType<typeof setTimeout> | undefined;
  function finalize(code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(finalizeTimer);
    for (const line of stderrLines.flush()) logLine(line);
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
    emitClose(
      new MepError(LocalErrorCode.ExtensionCrashed, `Extension ${name} exited unexpectedly (${how}).${last} Check its log, or run it by hand to reproduce.`, {
        data: { extension: name, pid: child.pid, exitCode: code, signal, stderr: stderr.lines() },
      }),
    );
  }

  child.on('exit', (code, signal) => {
    exited = true;
    live.delete(child);
    markExited();
    // 'close' follows once stdout and stderr are drained; a grandchild holding them open must
    // not keep the transport open forever.
    finalizeTimer = setTimeout(() => finalize(code, signal), 250);
  });
  child.on('close', (code, signal) => finalize(code, signal));
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid !== undefined) return; // a failed kill() or write; 'exit' reports the outcome
    exited = true;
    live.delete(child);
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
    async close() {
      emitClose(undefined);
      await stop(true);
    },
  };
}
