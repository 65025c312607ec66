import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseJson } from '../protocol/json-parse.ts';
import { Method } from '../protocol/methods.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { readEvents, startTestHttp } from './testing/http.ts';
import { createHostServer } from './host-server.ts';
import { clientOfAddress } from './http-guard.ts';
import { listenHttp } from './http-node.ts';
import { createNodeOpener } from './node-open.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ignoresCancel = join(root, 'fixtures/extensions/ignores-cancel.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const generate = (id: number, options: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });

/** POSTs `message` from the loopback address `from` (Linux answers all of 127.0.0.0/8); aborted by `signal`. */
function postFrom(from: string, url: string, message: unknown, signal?: AbortSignal): Promise<JsonRpcMessage> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) }, ...(signal ? { signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(parseJson(Buffer.concat(chunks).toString('utf8'), 'data') as JsonRpcMessage));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const limitOf = (answer: JsonRpcMessage): unknown => (answer.error as { data?: { limit?: unknown } } | undefined)?.data?.limit;

const test = suite('mep serve --http :: a share of the sessions per client');

test('should refuse one client past its share with ERR_LIMIT sessionsPerClient, and still serve a second client :: starve', async () => {
  const server = createHostServer({ open: createNodeOpener(), maxSessions: 4, closeGraceMs: 500 });
  const listener = await listenHttp(server, { port: 0, extensions: { echo: wellBehaved }, maxSessionsPerClient: 2 });
  const greedy = new AbortController();
  try {
    const url = `${listener.url}/`;
    // Client A asks for every session of the server, with calls that would run for a minute.
    const held = [1, 2, 3, 4].map((id) => postFrom('127.0.0.1', url, generate(id, { delayMs: 60_000 }), greedy.signal).catch((error: unknown) => ({ failed: String(error) }) as unknown as JsonRpcMessage));
    const refused: JsonRpcMessage[] = [];
    for (const answer of held) void answer.then((a) => refused.push(a));
    // Until A holds all it may: every slot, or its share and the rest refused.
    while (!(server.slotCount === 4 || (server.slotCount === 2 && refused.length === 2))) await new Promise((r) => setTimeout(r, 10));
    // Client B, from another address, is served.
    const other = await postFrom('127.0.0.2', url, generate(9));
    assert.ok((other.result as { success?: boolean } | undefined)?.success, `client B was served: ${JSON.stringify(other.error ?? other.result)}`);
    assert.is(refused.length, 2, 'two of A\'s calls were refused');
    for (const answer of refused) {
      assert.is(limitOf(answer), 'sessionsPerClient', JSON.stringify(answer));
      assert.match((answer.error as { message: string }).message, /--max-sessions-per-client/);
    }
  } finally {
    greedy.abort();
    await listener.close();
  }
});

test('should count against its share a session still running a call its client gave up on :: abandoned', async () => {
  // The extension ignores the cancel: the call runs on after its client left. Were the share given
  // back when the request ended, a client could leave and ask again, each time holding one more slot.
  const served = await startTestHttp({ echo: ignoresCancel }, { maxSessionsPerClient: 1 }, undefined, { maxSessions: 4, closeGraceMs: 60_000 });
  try {
    const url = `${served.listener.url}/`;
    const left = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(generate(1, { runMs: 30_000, note: 'left' })) });
    await readEvents(left, (event) => event.method === Method.Progress);
    // Its request ended (the stream cancelled, the cancel sent on); the session still runs the call.
    await served.nextSent((m) => m.method === Method.CancelRequest);
    const again = await postFrom('127.0.0.1', url, generate(2));
    assert.is(limitOf(again), 'sessionsPerClient', JSON.stringify(again));
    // Another client is served meanwhile.
    const other = await postFrom('127.0.0.2', url, generate(3));
    assert.ok((other.result as { success?: boolean } | undefined)?.success, JSON.stringify(other));
  } finally {
    await served.close();
  }
});

test('should take a client by its address: IPv4-mapped IPv6 as IPv4, IPv6 by its /64, never a forwarded header', () => {
  assert.is(clientOfAddress('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is(clientOfAddress('192.0.2.7'), '192.0.2.7');
  assert.is(clientOfAddress('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.is(clientOfAddress('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:db8:1:2::/64');
  assert.is(clientOfAddress('2001:db8::1'), '2001:db8:0:0::/64');
  assert.is(clientOfAddress('::1'), '0:0:0:0::/64');
  assert.is(clientOfAddress(undefined), 'unknown');
});

test.run();
