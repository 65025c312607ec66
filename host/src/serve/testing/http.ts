/**
 * Test support: `listenHttp` in this process on a free loopback port, serving the fixtures by
 * path, with every message the host sent to an extension recorded (to see `$/cancelRequest`),
 * and a client that posts one JSON-RPC request the way the reference host's HttpChannel does.
 */
import { createHostServer, type HostServer, type HostServerOptions } from '../host-server.ts';
import { listenHttp, type HttpListener, type HttpListenOptions } from '../http-node.ts';
import { createNodeOpener } from '../node-open.ts';
import { parseJson } from '../../protocol/json-parse.ts';
import type { JsonRpcMessage } from '../../transport/types.ts';

/** A served fixture and what its extensions were sent. */
export interface TestHttpServer {
  server: HostServer;
  listener: HttpListener;
  /** Messages sent to extensions, in order. */
  sent: JsonRpcMessage[];
  /** Resolves with the first message sent to an extension (already or later) that `predicate` accepts. */
  nextSent(predicate: (message: JsonRpcMessage) => boolean): Promise<JsonRpcMessage>;
  close(): Promise<void>;
}

/** Serve `extensions` (route id → path) over HTTP on 127.0.0.1; `serverOptions` of the host server (its slots, its grace). */
export async function startTestHttp(extensions: Record<string, string>, options: Partial<HttpListenOptions> = {}, log?: (line: string) => void, serverOptions: Omit<Partial<HostServerOptions>, 'open' | 'log'> = {}): Promise<TestHttpServer> {
  const sent: JsonRpcMessage[] = [];
  const waiters = new Set<{ predicate: (m: JsonRpcMessage) => boolean; resolve: (m: JsonRpcMessage) => void }>();
  const open = createNodeOpener();
  const server = createHostServer({
    closeGraceMs: 1_000,
    ...serverOptions,
    ...(log ? { log } : {}),
    open: async (request, context) => {
      const opened = await open(request, context);
      const send = opened.transport.send.bind(opened.transport);
      opened.transport.send = (message) => {
        sent.push(message);
        for (const waiter of [...waiters]) if (waiter.predicate(message)) (waiters.delete(waiter), waiter.resolve(message));
        send(message);
      };
      return opened;
    },
  });
  const listener = await listenHttp(server, { port: 0, extensions, ...options });
  const nextSent = (predicate: (m: JsonRpcMessage) => boolean): Promise<JsonRpcMessage> => {
    const seen = sent.find(predicate);
    return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.add({ predicate, resolve }));
  };
  return { server, listener, sent, nextSent, close: () => listener.close() };
}

/** POST one JSON-RPC request as HttpChannel does; the parsed body and the status. */
export async function postRpc(url: string, message: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: JsonRpcMessage; contentType: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof message === 'string' ? message : JSON.stringify(message),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (parseJson(text, 'data') as JsonRpcMessage), contentType: response.headers.get('content-type') };
}

/** Reads an SSE body event by event; `onEvent` may return true to stop reading (and close the stream). */
export async function readEvents(response: Response, onEvent: (message: JsonRpcMessage) => boolean | void): Promise<JsonRpcMessage[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: JsonRpcMessage[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      const message = parseJson(data) as JsonRpcMessage;
      events.push(message);
      if (onEvent(message) === true) {
        await reader.cancel();
        return events;
      }
    }
  }
}
