import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMepError, LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { createHttpTransport } from './http.ts';
import type { JsonRpcMessage, Transport } from './types.ts';

/**
 * A server at a URL that answers every POST as an SSE stream: `count` events made by `event(i, id)`
 * (each about `bytes` long), then the response, then `after` more events.
 */
async function startStreamingServer(options: { count: number; bytes: number; after?: number; event: (i: number, id: unknown, text: string) => object | string }): Promise<{ url: string; close(): Promise<void> }> {
  const text = 'l'.repeat(options.bytes);
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', async () => {
      const { id } = JSON.parse(body) as { id: unknown };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // An event as a message, or (a string) raw lines of the stream: comments, fields, blank lines.
      const send = (message: object | string): Promise<void> =>
        new Promise((resolve) => (res.write(typeof message === 'string' ? message : `data: ${JSON.stringify(message)}\n\n`) ? resolve() : res.once('drain', resolve)));
      for (let i = 0; i < options.count; i++) {
        if (res.destroyed) return;
        await send(options.event(i, id, text));
      }
      await send({ jsonrpc: '2.0', id, result: { ok: true } });
      for (let i = 0; i < (options.after ?? 0) && !res.destroyed; i++) await send(options.event(i, id, text));
      res.end();
    });
  });
  server.on('connection', (socket) => server.once('close', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/rpc`, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** Sends one request on `transport`; resolves with the messages delivered and how the transport closed (or 'open' once answered). */
function call(transport: Transport): Promise<{ delivered: JsonRpcMessage[]; outcome: MepError | 'answered' | undefined }> {
  const delivered: JsonRpcMessage[] = [];
  return new Promise((resolve) => {
    transport.onMessage((message) => {
      delivered.push(message);
      if (message.id === 1 && 'result' in message) setTimeout(() => resolve({ delivered, outcome: 'answered' }), 300);
    });
    transport.onClose((error) => resolve({ delivered, outcome: error }));
    transport.send({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: {} });
  });
}

const log = (_i: number, _id: unknown, text: string): object => ({ jsonrpc: '2.0', method: 'morphir.log', params: { level: 'info', message: text } });
const limitOf = (error: unknown): unknown => (isMepError(error) ? (error.data as { limit?: unknown } | undefined)?.limit : undefined);

const Budget = suite('transport/http :: notification budget');

const floods: Array<[string, Parameters<typeof startStreamingServer>[0]]> = [
  ['logs before the response', { count: 64, bytes: 16 * 1024, event: log }],
  ['many small logs', { count: 20_000, bytes: 64, event: log }],
  ['answers that settle no request', { count: 64, bytes: 16 * 1024, event: (i, _id, text) => ({ jsonrpc: '2.0', id: `never-sent-${i}`, result: { text } }) }],
  ['requests to the host', { count: 64, bytes: 16 * 1024, event: (i, _id, text) => ({ jsonrpc: '2.0', id: `ask-${i}`, method: 'secret.resolve', params: { reference: text } }) }],
  // What no event delivers, before the answer: bounded only by the call deadline before.
  ['comments (keep-alives)', { count: 64, bytes: 16 * 1024, event: (_i, _id, text) => `: ${text}\n` }],
  ['blank lines', { count: 64, bytes: 16 * 1024, event: (_i, _id, text) => '\n'.repeat(text.length) }],
  ['event, id and retry fields without data', { count: 64, bytes: 16 * 1024, event: (i, _id, text) => `event: ${text}\nid: ${i}\nretry: 1\n\n` }],
  ['many small comments', { count: 20_000, bytes: 64, event: (_i, _id, text) => `:${text}\r\n` }],
];

for (const [what, server] of floods) {
  Budget(`should end a session whose server streams ${what} past maxNotificationBytes, naming the limit :: ERR_LIMIT`, async () => {
    // 64 events of 16 KiB (or endless ones) against a budget of 256 KiB: before, every one was parsed and delivered, for as long as the server sent them.
    const streaming = await startStreamingServer(server);
    const transport = createHttpTransport({ url: streaming.url, maxNotificationBytes: 256 * 1024 });
    try {
      const { delivered, outcome } = await call(transport);
      assert.is(isMepError(outcome) ? outcome.code : outcome, LocalErrorCode.Limit);
      assert.is(limitOf(outcome), 'maxNotificationBytes');
      const counted = delivered.filter((m) => !(m.id === 1 && 'result' in m));
      const sent = server.count + (server.after ?? 0);
      assert.ok(counted.length * (server.bytes + 60) <= 256 * 1024 + server.bytes + 60, `${counted.length} of ${sent} delivered past the budget`);
    } finally {
      await transport.close();
      await streaming.close();
    }
  });
}

Budget('should stop reading a stream at its answer, the last event: nothing a server sends after it is read or delivered', async () => {
  // Before, the stream was read for as long as the server kept it open after the answer (its comments, counted by nothing, too).
  const streaming = await startStreamingServer({ count: 2, bytes: 1024, after: 64, event: log });
  const transport = createHttpTransport({ url: streaming.url, maxNotificationBytes: 256 * 1024 });
  try {
    const { delivered, outcome } = await call(transport);
    assert.is(outcome, 'answered');
    assert.equal(delivered.map((m) => m.method ?? `answer ${String(m.id)}`), ['morphir.log', 'morphir.log', 'answer 1']);
  } finally {
    await transport.close();
    await streaming.close();
  }
});

Budget('should deliver logs under the budget, and start a new budget with each request', async () => {
  const streaming = await startStreamingServer({ count: 8, bytes: 16 * 1024, event: log });
  const transport = createHttpTransport({ url: streaming.url, maxNotificationBytes: 256 * 1024 });
  try {
    for (let round = 0; round < 3; round++) {
      const delivered: JsonRpcMessage[] = [];
      const answered = new Promise<void>((resolve) => {
        transport.onMessage((message) => {
          delivered.push(message);
          if (message.id === round + 10 && 'result' in message) resolve();
        });
      });
      transport.send({ jsonrpc: '2.0', id: round + 10, method: 'morphir.backend.generate', params: {} });
      await answered;
      assert.ok(delivered.filter((m) => m.method === 'morphir.log').length >= 8, `round ${round}`);
    }
  } finally {
    await transport.close();
    await streaming.close();
  }
});

Budget.run();
