import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcMessage } from './types.ts';
import { createHttpTransport } from './http.ts';

const OBJECTS = 600_000;
const bigAnswer = (id: unknown): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":[${'{},'.repeat(OBJECTS - 1)}{}]}`;

/**
 * A server whose messages are large: a JSON answer, or an SSE stream of a small notification, a
 * large one, another small one, then the answer (the last event: nothing after it is read).
 */
async function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: unknown };
      if ((req.headers.accept ?? '').includes('text/event-stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const big = `{"jsonrpc":"2.0","method":"big","params":[${'{},'.repeat(OBJECTS - 1)}{}]}`;
        res.end(`data: {"jsonrpc":"2.0","method":"before"}\n\ndata: ${big}\n\ndata: {"jsonrpc":"2.0","method":"after"}\n\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":[]}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(bigAnswer(id));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/rpc`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * The real fetch, its body handed to the transport as one chunk once read whole, so the parse
 * is all that runs between the last read and the delivery; `onResponse` runs as it is handed over.
 */
const wholeBodyFetch =
  (onResponse: () => void): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    const body = new Uint8Array(await response.arrayBuffer());
    onResponse();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    return new Response(stream, { status: response.status, headers: response.headers });
  };

const describeMessage = (message: JsonRpcMessage): string =>
  message.method === 'big' ? `big of ${(message.params as unknown[]).length}` : typeof message.method === 'string' ? message.method : `answer of ${(message.result as unknown[]).length}`;

const Cpu = suite('transport/http :: CPU per answer');

Cpu('should let the event loop turn while it parses a JSON answer of 600,000 empty objects, then deliver it', async () => {
  const server = await startServer();
  const order: string[] = [];
  const transport = createHttpTransport({ url: server.url, stream: false, fetch: wholeBodyFetch(() => setImmediate(() => order.push('a turn'))) });
  try {
    const answered = new Promise<void>((resolve) =>
      transport.onMessage((message) => {
        order.push(describeMessage(message));
        resolve();
      }),
    );
    transport.send({ jsonrpc: '2.0', id: 1, method: 'big' });
    await answered;
    // Before, one JSON.parse held the loop from the last read to the delivery.
    assert.equal(order, ['a turn', `answer of ${OBJECTS}`]);
  } finally {
    await transport.close();
    await server.close();
  }
});

Cpu('should let the event loop turn while it parses a large SSE event, delivering the events in order', async () => {
  const server = await startServer();
  const order: string[] = [];
  const transport = createHttpTransport({ url: server.url, fetch: wholeBodyFetch(() => undefined) });
  try {
    const done = new Promise<void>((resolve) =>
      transport.onMessage((message) => {
        order.push(describeMessage(message));
        // Scheduled as the small event before the large one is delivered: it runs during the large one's parse.
        if (message.method === 'before') setImmediate(() => order.push('a turn'));
        if (message.id === 1) resolve();
      }),
    );
    transport.send({ jsonrpc: '2.0', id: 1, method: 'big' });
    await done;
    assert.equal(order, ['before', 'a turn', `big of ${OBJECTS}`, 'after', 'answer of 0']);
  } finally {
    await transport.close();
    await server.close();
  }
});

Cpu.run();
