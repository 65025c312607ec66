/** `mep serve --http HOST:PORT`: the flags of the HTTP binding and how they become its options. */
import { resolve } from 'node:path';
import { readTextFile } from '../../files/regular-file.ts';
import type { ExtensionLimits } from '../../protocol/limits.ts';
import { routeIdOf, type HostServer } from '../../serve/index.ts';
import { listenHttp } from '../../serve/node.ts';
import { UsageError } from '../exit-codes.ts';
import type { Io } from '../io.ts';
import { parseSize } from './limit-flags.ts';
import { positiveCount, type ServeBounds } from './serve-bounds.ts';
import { HTTP_LIMITS } from '../../serve/http-routes.ts';

/** Flags of `mep serve` for HTTP (parseArgs config). */
export const HTTP_FLAGS = {
  http: { type: 'string' },
  extension: { type: 'string', multiple: true },
  'token-file': { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'max-sessions': { type: 'string' },
  'max-sessions-per-client': { type: 'string' },
  'fresh-sessions': { type: 'boolean' },
  'body-timeout': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-client': { type: 'string' },
  'max-bodies': { type: 'string' },
  'max-bodies-per-client': { type: 'string' },
  'parse-heap': { type: 'string' },
} as const;

/** Their help lines. */
export const HTTP_HELP = `  --http HOST:PORT    serve over HTTP instead (one JSON-RPC request per POST; the
                      MEP messages themselves, as the Morphir host's HttpChannel sends):
                      installed extensions at /extensions/<id>, GET /health, GET /info
  --extension EXT     serve EXT (an installed id or a path) at /extensions/<name>;
                      a single one also at /; repeatable
  --token-file PATH   clients must send Authorization: Bearer <token> (or Basic with it
                      as password); also MEP_HTTP_TOKEN. Required unless HOST is loopback
  --allow-origin URL  accept requests from this browser origin (default: none); repeatable
  --max-sessions N    sessions (processes, wasm workers) held at once (default 64)
  --max-sessions-per-client N
                      sessions one client address (an IPv6 one by its /64) holds at once;
                      past it ERR_LIMIT sessionsPerClient (default a quarter of
                      --max-sessions; X-Forwarded-For is not read: behind a proxy all
                      its clients are one)
  --fresh-sessions    run every HTTP request in a session of its own (default: pooled)
  --body-timeout TIME     time a request body may take to arrive (default 30s)
  --headers-timeout TIME  time request headers may take to arrive (default 10s)
  --max-connections N connections open at once (--http or --socket), with or without
                      the token; past it a new one is closed unanswered (default 1024)
  --max-connections-per-client N
                      connections one client address (an IPv6 one by its /64) holds at
                      once, with or without the token; past it a new one is closed
                      unanswered (default a quarter of --max-connections)
  --max-bodies SIZE   request bodies read and held at once over all clients (default
                      128MiB, at least --max-message); a body past it waits unread, then
                      503 busy with Retry-After after --body-timeout
  --max-bodies-per-client SIZE
                      of them, what one client address holds at once (default a quarter
                      of --max-bodies, at least --max-message); its next body waits while
                      other clients' bodies pass
  --parse-heap SIZE   heap of the worker thread that reads a body of 1 MiB or more
                      (default 1GiB, 16MiB to 16GiB); a body whose values need more
                      is answered ERR_LIMIT parseHeapBytes`;

/** The values of {@link HTTP_FLAGS}. */
export interface HttpFlagValues {
  http?: string;
  extension?: string[];
  'token-file'?: string;
  'allow-origin'?: string[];
  'fresh-sessions'?: boolean;
  'max-sessions-per-client'?: string;
  'body-timeout'?: string;
  'headers-timeout'?: string;
  'max-connections'?: string;
  'max-connections-per-client'?: string;
  'max-bodies'?: string;
  'max-bodies-per-client'?: string;
  'parse-heap'?: string;
}

/** Listen as the flags say and serve until the server stops. */
export async function serveHttp(server: HostServer, values: HttpFlagValues, io: Io, limits: ExtensionLimits, bounds: ServeBounds): Promise<void> {
  const { host, port } = parseAddress(values.http as string);
  const token = await tokenOf(values['token-file'], io);
  const extensions: Record<string, string> = {};
  for (const reference of values.extension ?? []) {
    const id = routeIdOf(reference);
    if (Object.hasOwn(extensions, id)) throw new UsageError(`two --extension arguments are served at /extensions/${id}: rename one file.`);
    extensions[id] = reference;
  }
  const maxMessageBytes = limits.maxMessageBytes ?? HTTP_LIMITS.maxBodyBytes;
  const maxBodiesBytes = bodiesBudgetOf(values['max-bodies'], maxMessageBytes);
  const maxBodiesPerClientBytes = sizeWithin('--max-bodies-per-client', values['max-bodies-per-client'], maxMessageBytes, 64 * 1024 ** 3, '--max-message: the largest body must fit');
  const parseHeapBytes = sizeWithin('--parse-heap', values['parse-heap'], 16 * 1024 ** 2, 16 * 1024 ** 3);
  const listener = await listenHttp(server, {
    host,
    port,
    ...(token ? { token } : {}),
    extensions,
    installed: true,
    allowOrigins: values['allow-origin'] ?? [],
    ...(limits.maxMessageBytes === undefined ? {} : { maxBodyBytes: limits.maxMessageBytes }),
    ...(bounds.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: bounds.bodyTimeoutMs }),
    ...(bounds.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: bounds.headersTimeoutMs }),
    ...(bounds.sendTimeoutMs === undefined ? {} : { sendTimeoutMs: bounds.sendTimeoutMs }),
    ...(bounds.maxConnections === undefined ? {} : { maxConnections: bounds.maxConnections }),
    ...(maxBodiesBytes === undefined ? {} : { maxBodiesBytes }),
    ...(maxBodiesPerClientBytes === undefined ? {} : { maxBodiesPerClientBytes }),
    ...(parseHeapBytes === undefined ? {} : { parseHeapBytes }),
    sessions: { fresh: Boolean(values['fresh-sessions']) },
    ...(values['max-sessions-per-client'] === undefined ? {} : { maxSessionsPerClient: positiveCount(values['max-sessions-per-client'], '--max-sessions-per-client') }),
    ...(values['max-connections-per-client'] === undefined ? {} : { maxConnectionsPerClient: positiveCount(values['max-connections-per-client'], '--max-connections-per-client') }),
  });
  // The address only: the token is never printed (io redacts it too).
  if (io.verbose) io.err(`mep serve: listening on ${listener.url}${token ? ' (token required)' : ''}`);
  await listener.closed;
}

/**
 * `--max-bodies SIZE`: the server-wide bytes of request bodies held at once, at least one body of
 * `maxBodyBytes` (--max-message: a smaller budget could never read the largest body), at most
 * 64 GiB. Undefined when not given (the default, `HTTP_LIMITS.maxBodiesBytes`).
 */
export function bodiesBudgetOf(text: string | undefined, maxBodyBytes: number): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseSize('--max-bodies', text);
  if (bytes < maxBodyBytes || bytes > 64 * 1024 ** 3) {
    throw new UsageError(`--max-bodies must be from --max-message (${maxBodyBytes} bytes: the largest body must fit) to 64GiB, got ${JSON.stringify(text)}; raise it, or lower --max-message.`);
  }
  return bytes;
}

/** A size flag from `min` bytes (`minIs` says why, when it is another flag's) to `max`; undefined when not given. */
function sizeWithin(flag: string, text: string | undefined, min: number, max: number, minIs?: string): number | undefined {
  if (text === undefined) return undefined;
  const bytes = parseSize(flag, text);
  if (bytes < min || bytes > max) throw new UsageError(`${flag} must be from ${minIs ? `${min} bytes (${minIs})` : `${min / 1024 ** 2}MiB`} to ${max / 1024 ** 3}GiB, got ${JSON.stringify(text)}.`);
  return bytes;
}

/** `HOST:PORT`, `[::1]:PORT` or `:PORT` (loopback). */
export function parseAddress(text: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new UsageError(`--http takes HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080 (got ${JSON.stringify(text)}).`);
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

async function tokenOf(file: string | undefined, io: Io): Promise<string | undefined> {
  const text = file !== undefined ? await readTextFile(resolve(io.cwd, file), { what: 'the token file', maxBytes: 4096 }) : process.env.MEP_HTTP_TOKEN;
  if (text === undefined) return undefined;
  const token = text.trim();
  if (token.length < 16 || /\s/.test(token)) {
    throw new UsageError(`the HTTP token (${file === undefined ? 'MEP_HTTP_TOKEN' : file}) must be at least 16 characters without spaces; generate one with: openssl rand -hex 32`);
  }
  io.redactor.add(token);
  return token;
}
