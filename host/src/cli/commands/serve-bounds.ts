/**
 * `mep serve`'s flags for the server's own bounds (what a client or a session may hold at once),
 * each parsed and range-checked here, a bad value a UsageError (exit 2) naming the flag, its
 * range and the value. Durations are checked against what a timer holds (1 ms to 2^31-1 ms: a
 * longer one would fire at once).
 */
import type { HostServerOptions } from '../../serve/index.ts';
import { MAX_TIMER_MS } from '../../transport/long-timer.ts';
import { UsageError } from '../exit-codes.ts';
import { parseDuration, parseSize } from './limit-flags.ts';

/** The flags (parseArgs config); `--max-connections` is HTTP_FLAGS'. */
export const SERVE_BOUND_FLAGS = {
  'max-calls': { type: 'string' },
  'max-sessions-per-connection': { type: 'string' },
  'max-line-buffer': { type: 'string' },
  'max-frame-buffer': { type: 'string' },
  'stdin-backlog': { type: 'string' },
  'stdin-stall': { type: 'string' },
  'send-timeout': { type: 'string' },
} as const;

/** Their help lines. */
export const SERVE_BOUND_HELP = `  --max-calls N       calls (session/call, project/compile) one connection may have
                      running at once; past it ERR_LIMIT callsPerConnection (default 64)
  --max-sessions-per-connection N
                      sessions one connection may hold (default 16)
  --max-line-buffer SIZE  bytes of unfinished request lines over all connections; the
                      connection that passes it is dropped (default 128MiB, or two lines)
  --max-frame-buffer SIZE bytes of unfinished frames of process extensions over all
                      sessions; the session that passes it ends with ERR_LIMIT
                      maxFrameBufferBytes (default 256MiB, or two messages)
  --stdin-backlog SIZE    bytes written to a process extension it has not read yet, past
                      which its output is held and new requests are refused (default 16MiB)
  --stdin-stall TIME  how long such a held extension may go on not reading before it is
                      ended (default 10s)
  --send-timeout TIME how long a client (--http, --socket) may take none of the answer
                      waiting for it before its connection is closed, its calls cancelled
                      and its bytes let go; counted from its last progress, not the
                      answer's start (default 60s)`;

/** The values of {@link SERVE_BOUND_FLAGS}, with the HTTP flags that are bounds too. */
export interface ServeBoundValues {
  'max-calls'?: string;
  'max-sessions-per-connection'?: string;
  'max-line-buffer'?: string;
  'max-frame-buffer'?: string;
  'stdin-backlog'?: string;
  'stdin-stall'?: string;
  'send-timeout'?: string;
  'max-connections'?: string;
  'body-timeout'?: string;
  'headers-timeout'?: string;
}

/** What the flags set: the server's options, a process extension's, and the listener's connection cap. */
export interface ServeBounds {
  server: Pick<HostServerOptions, 'maxCallsPerConnection' | 'maxSessionsPerConnection' | 'maxLineBufferBytes' | 'maxFrameBufferBytes'>;
  process: { maxStdinBacklogBytes?: number; stdinStallMs?: number };
  maxConnections?: number;
  bodyTimeoutMs?: number;
  headersTimeoutMs?: number;
  sendTimeoutMs?: number;
}

const MAX_BUFFER_BYTES = 64 * 1024 ** 3;

/** A count flag: a whole number from 1 to 100000, else UsageError naming the flag. */
export function positiveCount(text: string, flag: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isInteger(value) || value < 1 || value > 100_000) throw new UsageError(`${flag} takes a whole number from 1 to 100000 (got ${JSON.stringify(text)}).`);
  return value;
}

/** A size flag from `min` bytes (`why` it cannot be less) to 64 GiB. */
function sizeIn(flag: string, text: string, min: number, why: string): number {
  const bytes = parseSize(flag, text);
  if (bytes < min || bytes > MAX_BUFFER_BYTES) throw new UsageError(`${flag} must be at least ${min} bytes (${why}) and at most 64GiB, got ${JSON.stringify(text)}.`);
  return bytes;
}

/** A duration flag a timer can hold: 1 ms to 2147483647 ms (about 24.8 days). */
export function timerDuration(flag: string, text: string): number {
  const ms = parseDuration(flag, text);
  if (ms < 1 || ms > MAX_TIMER_MS) throw new UsageError(`${flag} must be from 1ms to ${MAX_TIMER_MS}ms (about 24.8 days, the longest a timer holds), got ${JSON.stringify(text)}.`);
  return ms;
}

/**
 * The bounds the flags give (only those given). `maxLineBytes` and `maxMessageBytes` are the
 * server's line and message limits: a buffer smaller than one of them could never hold it.
 */
export function serveBoundsOf(values: ServeBoundValues, context: { transport: 'stdio' | 'socket' | 'http'; maxLineBytes: number; maxMessageBytes: number }): ServeBounds {
  const given = <T>(text: string | undefined, parse: (text: string) => T): T | undefined => (text === undefined ? undefined : parse(text));
  const server: ServeBounds['server'] = {};
  const calls = given(values['max-calls'], (t) => positiveCount(t, '--max-calls'));
  if (calls !== undefined) server.maxCallsPerConnection = calls;
  const sessions = given(values['max-sessions-per-connection'], (t) => positiveCount(t, '--max-sessions-per-connection'));
  if (sessions !== undefined) server.maxSessionsPerConnection = sessions;
  const lines = given(values['max-line-buffer'], (t) => sizeIn('--max-line-buffer', t, context.maxLineBytes, 'one request line of the largest size must fit'));
  if (lines !== undefined) server.maxLineBufferBytes = lines;
  const frames = given(values['max-frame-buffer'], (t) => sizeIn('--max-frame-buffer', t, context.maxMessageBytes, 'one message of --max-message must fit'));
  if (frames !== undefined) server.maxFrameBufferBytes = frames;
  const process: ServeBounds['process'] = {};
  const backlog = given(values['stdin-backlog'], (t) => sizeIn('--stdin-backlog', t, 1024, 'at least 1KiB'));
  if (backlog !== undefined) process.maxStdinBacklogBytes = backlog;
  const stall = given(values['stdin-stall'], (t) => timerDuration('--stdin-stall', t));
  if (stall !== undefined) process.stdinStallMs = stall;
  const bounds: ServeBounds = { server, process };
  if (values['max-connections'] !== undefined) {
    if (context.transport === 'stdio') throw new UsageError('--max-connections bounds the clients of --socket or --http; over stdio there is one.');
    bounds.maxConnections = positiveCount(values['max-connections'], '--max-connections');
  }
  if (values['send-timeout'] !== undefined) {
    if (context.transport === 'stdio') throw new UsageError('--send-timeout bounds the clients of --socket or --http; over stdio the one client is the parent process, which holds the pipe.');
    bounds.sendTimeoutMs = timerDuration('--send-timeout', values['send-timeout']);
  }
  const body = given(values['body-timeout'], (t) => timerDuration('--body-timeout', t));
  if (body !== undefined) bounds.bodyTimeoutMs = body;
  const headers = given(values['headers-timeout'], (t) => timerDuration('--headers-timeout', t));
  if (headers !== undefined) bounds.headersTimeoutMs = headers;
  return bounds;
}
