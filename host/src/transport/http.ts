/**
 * The HTTP transport: an extension served at a URL (`mep serve --http`, a replica set behind a
 * load balancer, an edge worker, or any server of the reference host's `HttpChannel` wire). Each
 * request is one POST of the JSON-RPC message to the URL as given; the answer is one JSON body,
 * or, when the server streams, an SSE stream of notifications (progress, logs, artifacts) ending
 * with the response. Platform-neutral: it needs only `fetch`.
 *
 * HTTP carries no notification to the server that matters: `morphir.initialized` and
 * `morphir.exit` are not sent (the server runs its extension's lifecycle itself, as the reference
 * host expects), and `$/cancelRequest` aborts the request's POST, which a streaming server takes
 * as the cancellation. Any non-2xx answer, a refused connection or a cut stream ends the
 * transport, as it ends an `HttpChannel` session, with a typed error.
 */
import { readBoundedText, readTextPrefix } from '../framing/bounded-text.ts';
import { createSseDecoder } from '../framing/sse.ts';
import { stringifyMessage } from '../framing/json-text.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { parseJsonMessage } from '../protocol/json-sliced.ts';
import { DEFAULT_LIMITS } from '../protocol/limits.ts';
import { createInboundLimits } from './process/inbound-limits.ts';
import { createTransportEvents } from './events.ts';
import type { JsonRpcMessage, Transport } from './types.ts';

/** Options of {@link createHttpTransport}. */
export interface HttpTransportOptions {
  /** Where the extension is served; userinfo (`https://user:token@host/…`) becomes Basic authentication. */
  url: string;
  /** For messages. Default: the URL without userinfo. */
  name?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Ask for SSE streams (progress, cancel). Default true; false sends exactly `Accept: application/json`. */
  stream?: boolean;
  /** Largest message either way, in bytes. Default 64 MiB (the reference host's). */
  maxMessageBytes?: number;
  /**
   * Bytes of what the server sends between two requests of the host besides their answers (logs,
   * progress, its own requests, answers that settle nothing, events after the answer); past it the
   * session ends with ERR_LIMIT, as a process extension's does. Default 64 MiB (`--max-notifications`).
   */
  maxNotificationBytes?: number;
  /** The fetch to use. Default the global one. */
  fetch?: typeof fetch;
}

const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Create a transport to the extension at `options.url`. Nothing is sent until the session sends.
 *
 * @example
 * const session = createSession({ transport: createHttpTransport({ url: 'http://127.0.0.1:8080/extensions/avro' }) });
 * try { await session.start(); await session.generate(request); } finally { await session.close(); }
 */
export function createHttpTransport(options: HttpTransportOptions): Transport {
  const { url, authorization } = splitUserinfo(options.url);
  const name = options.name ?? url;
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const doFetch = options.fetch ?? fetch;
  const events = createTransportEvents();
  // A server streams for as long as it likes: what it sends besides its answers is counted.
  const inbound = createInboundLimits(name, options.maxNotificationBytes ?? DEFAULT_LIMITS.maxNotificationBytes);
  const inflight = new Map<string | number, AbortController>();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.stream === false ? 'application/json' : 'application/json, text/event-stream',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : authorization ? { authorization } : {}),
  };

  const fail = (error: MepError): void => {
    for (const controller of inflight.values()) controller.abort(error);
    inflight.clear();
    events.emitClose(error);
  };

  const post = async (id: string | number, body: string): Promise<void> => {
    const controller = new AbortController();
    inflight.set(id, controller);
    try {
      let response: Response;
      try {
        // Never followed: the server at the URL would choose where the user's IR goes (another origin, the loopback).
        response = await doFetch(url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      } catch (error) {
        if (controller.signal.aborted) return; // cancelled or closed: nothing to report
        return fail(new MepError(LocalErrorCode.Unreachable, `Cannot reach the extension at ${name}: ${describe(error)}. Check the URL and that the server runs.`, { data: { url: name }, cause: error }));
      }
      if (response.status === 401 || response.status === 403) {
        await response.body?.cancel();
        return fail(new MepError(LocalErrorCode.Unauthorized, `The server at ${name} refused the request (HTTP ${response.status}): give its token (MEP_HTTP_TOKEN, or user:token@ in the URL) or allow this client.`, { data: { url: name, status: response.status } }));
      }
      if (response.status >= 300 && response.status <= 399) {
        await response.body?.cancel();
        const location = (response.headers.get('location') ?? '(none)').slice(0, 300);
        return fail(new MepError(LocalErrorCode.TransportClosed, `The server at ${name} answered HTTP ${response.status}, a redirect to ${location}; mep does not follow redirects (the request would be sent where the server says). Give the extension's final URL.`, { data: { url: name, status: response.status, location, reason: 'redirect' } }));
      }
      if (response.status < 200 || response.status > 299) {
        // Its start only: the body of an error answer is the server's to make endless.
        const detail = (await readTextPrefix(response.body, 1200).catch(() => '')).slice(0, 300);
        return fail(new MepError(LocalErrorCode.TransportClosed, `The server at ${name} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}.`, { data: { url: name, status: response.status } }));
      }
      const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      if (type === 'text/event-stream') await readEvents(response, id, controller.signal);
      else await readJson(response, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      fail(error instanceof MepError ? error : new MepError(LocalErrorCode.TransportClosed, `The answer from ${name} was cut off: ${describe(error)}.`, { data: { url: name }, cause: error }));
    } finally {
      inflight.delete(id);
    }
  };

  /**
   * Parses one answer or event and delivers it. From SLICED_FROM_CHARS up in slices: the event
   * loop every other session shares turns meanwhile, and this stream is not read further (the
   * caller awaits), so its events keep their order. Rejects with the abort reason once `signal`
   * aborted (cancelled, closed).
   */
  const deliver = async (text: string, signal: AbortSignal): Promise<JsonRpcMessage | undefined> => {
    if (events.closed) return undefined;
    const message = (await parseJsonMessage(text, { signal })) as JsonRpcMessage;
    if (signal.aborted || events.closed) return undefined;
    const over = inbound.received(message, text);
    if (over) return void fail(over);
    events.emitMessage(message);
    return message;
  };

  const readJson = async (response: Response, signal: AbortSignal): Promise<void> => {
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > maxBytes) throw tooLarge(name, maxBytes);
    const text = await boundedText(response, maxBytes, name);
    if (text.trim() !== '') await deliver(text, signal);
  };

  /** Delivers the stream's events up to the answer to `id`, its last event: nothing after it is read. */
  const readEvents = async (response: Response, id: string | number, signal: AbortSignal): Promise<void> => {
    // Events of one chunk are delivered one after another before the next chunk is read.
    const complete: string[] = [];
    // Comments, keep-alives and fields without data cost the host reading them: counted with the notifications.
    const decoder = createSseDecoder((data) => complete.push(data), maxBytes, (chars) => {
      const over = inbound.skipped(chars, 'comments, keep-alives or fields of events without data');
      if (over) throw over;
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const text = new TextDecoder();
    const onAbort = (): void => void reader.cancel().catch(() => undefined); // the stream is gone either way
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        decoder.push(done ? `${text.decode()}\n\n` : text.decode(value, { stream: true }));
        for (const data of complete.splice(0)) {
          const message = await deliver(data, signal);
          if (message !== undefined && message.method === undefined && message.id === id) return void reader.cancel().catch(() => undefined);
        }
        if (done) return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };

  return {
    name,
    stateless: true,
    send(message) {
      if (events.closed) throw new MepError(LocalErrorCode.TransportClosed, `Cannot send to ${name}: the HTTP transport is closed.`);
      inbound.sent(message);
      const method = message.method;
      if (typeof method === 'string' && !('id' in message)) {
        if (method === '$/cancelRequest') {
          const id = (message.params as { id?: string | number } | undefined)?.id;
          if (id !== undefined) inflight.get(id)?.abort(new MepError(-32800, 'cancelled'));
        }
        // No other notification is sent: see the file comment.
        return;
      }
      // A response of ours (to a server's request) has nowhere to go over HTTP: one POST, one answer.
      if (typeof method !== 'string') return;
      // As the other transports write it: params written ahead and JsonText members (a large body
      // read on its worker, serve/body-off-thread.ts) spliced in, not parsed again here.
      const body = stringifyMessage(message);
      if (body.length > maxBytes) throw tooLarge(name, maxBytes);
      void post(message.id as string | number, body);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    cancel(id) {
      inflight.get(id)?.abort(new MepError(-32800, 'cancelled'));
    },
    async close() {
      for (const controller of inflight.values()) controller.abort(new MepError(LocalErrorCode.TransportClosed, 'closed'));
      inflight.clear();
      events.emitClose();
    },
  };
}

/** The body as UTF-8, read within `maxBytes`; past it, the typed error naming the bound. */
async function boundedText(response: Response, maxBytes: number, name: string): Promise<string> {
  const text = await readBoundedText(response.body, maxBytes);
  if (text === undefined) throw tooLarge(name, maxBytes);
  return text;
}

function tooLarge(name: string, maxBytes: number): MepError {
  return new MepError(LocalErrorCode.Limit, `A message to or from ${name} is larger than ${maxBytes} bytes, the message limit; raise it with --max-message.`, { data: { limit: 'maxMessageBytes', max: maxBytes, url: name } });
}

/** The URL without userinfo, and userinfo as a Basic `Authorization` value (fetch refuses URLs with credentials). */
function splitUserinfo(text: string): { url: string; authorization?: string } {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch (error) {
    throw new MepError(LocalErrorCode.Usage, `${JSON.stringify(text.slice(0, 200))} is not a URL: give the extension's address as http(s)://host:port/path.`, { cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new MepError(LocalErrorCode.Usage, `An extension is reached over http: or https:, not ${parsed.protocol}.`, { data: { protocol: parsed.protocol } });
  }
  if (parsed.username === '' && parsed.password === '') return { url: parsed.href };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return { url: parsed.href, authorization: `Basic ${btoa(String.fromCharCode(...bytes))}` };
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
