/**
 * Red team of the server's heap per HTTP body (issue 31): a parsed body costs the heap up to ~20×
 * its bytes (64 MiB of `[{},{},…]` is 1.4 GB), and V8's collector, tracing those values on the
 * thread that answers every client, paused them all (`/health` waited 7.4 s). A body from
 * `offThreadFromBytes` is now parsed and decoded on a worker with its own heap
 * (body-off-thread.ts); the server keeps its large params members as one string each.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import { JsonText } from '../protocol/json-text.ts';
import { postRpc, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const BodyHeap = suite('mep serve --http :: heap per body');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeap = (): number => (gc(), getHeapStatistics().used_heap_size);

/** A generate body whose options hold `count` empty objects (3 bytes each on the wire). */
const bomb = (count: number, id: number | string = 1): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"morphir.backend.generate","params":{"ir":{"formatVersion":3,"distribution":["Library",[],[],{"modules":[]}]},"target":"echo","options":{"pad":[${'{},'.repeat(count - 1)}{}]}}}`;

BodyHeap('should keep a large body\'s values off the server\'s heap while its call runs, and answer /health before it :: hostile', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const count = 2_000_000;
    const body = bomb(count);
    // What these values cost a heap, measured here: parsed and held, after a collection.
    const before = liveHeap();
    let held: unknown = JSON.parse(body);
    const valuesCost = liveHeap() - before;
    held = undefined;
    void held;
    const baseline = liveHeap();
    const answer = postRpc(served.listener.url, body);
    const sent = await served.nextSent((m) => m.method === 'morphir.backend.generate');
    // The message sent is held (by this test's record of it) and the call runs: what the server's heap holds now.
    const during = liveHeap() - baseline;
    const order: string[] = [];
    await Promise.all([fetch(`${served.listener.url}/health`).then((r) => order.push(`health ${r.status}`)), answer.then((r) => order.push(`body ${r.status}`))]);
    assert.match(JSON.stringify((await answer).body), /"success":true/);
    // Before: the parsed params (and a decoded copy) were live on the server's heap, ≥ valuesCost.
    // Now: the text of the member, and the message written from it (2 × 6 MB), well under half of it.
    assert.ok(valuesCost > 4 * body.length, `the values cost ${valuesCost} bytes of heap for ${body.length} bytes of body`);
    assert.ok(during < valuesCost / 2, `the server's live heap grew ${during} bytes during the call; the body's values cost ${valuesCost}`);
    assert.equal(order[0], 'health 200');
    const options = (sent.params as { options: unknown }).options;
    assert.ok(options instanceof JsonText, 'the large member is held as its text');
    assert.is(((options as JsonText).value() as { pad: unknown[] }).pad.length, count);
  } finally {
    await served.close();
  }
});

BodyHeap('should answer ERR_LIMIT parseHeapBytes to a body whose values need more heap than its worker has, and go on serving :: hostile', async () => {
  const served = await startTestHttp({ echo: wellBehaved }, { parseHeapBytes: 16 * 1024 * 1024 });
  try {
    const refused = await postRpc(served.listener.url, bomb(3_000_000, 'big'));
    const error = (refused.body as { error?: { code: number; message: string; data: { localCode: string; limit: string } } }).error;
    assert.ok(error, JSON.stringify(refused.body));
    assert.equal([refused.status, error.code, error.data.localCode, error.data.limit], [200, ErrorCode.ExtensionFailure, LocalErrorCode.Limit, 'parseHeapBytes'], JSON.stringify(error));
    assert.match(error.message, /smaller body/);
    assert.is((await fetch(`${served.listener.url}/health`)).status, 200);
    const ping = await postRpc(served.listener.url, { jsonrpc: '2.0', id: 2, method: 'morphir.ping' });
    assert.is(ping.status, 200);
    assert.ok('result' in ping.body, JSON.stringify(ping.body));
  } finally {
    await served.close();
  }
});

BodyHeap('should refuse what the worker read as the server does: not JSON (400), params the schema refuses (-32602 with the id), an id that is not one', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const pad = `"pad":[${'{},'.repeat(400_000)}{}]`;
    const notJson = await postRpc(served.listener.url, `{"jsonrpc":"2.0",${pad},`);
    assert.equal([notJson.status, (notJson.body as { error: { code: number } }).error.code], [400, ErrorCode.ParseError]);
    const badParams = await postRpc(served.listener.url, `{"jsonrpc":"2.0","id":"p","method":"morphir.backend.generate","params":{"target":7,${pad}}}`);
    assert.equal([badParams.body.id, (badParams.body as { error: { code: number } }).error.code], ['p', ErrorCode.InvalidParams]);
    const badId = await postRpc(served.listener.url, `{"jsonrpc":"2.0","id":{${pad}},"method":"morphir.ping"}`);
    assert.equal([badId.body.id, (badId.body as { error: { code: number } }).error.code], [null, ErrorCode.InvalidRequest]);
    const batch = await postRpc(served.listener.url, `[${'{},'.repeat(400_000)}{}]`);
    assert.equal((batch.body as { error: { code: number } }).error.code, ErrorCode.InvalidRequest);
  } finally {
    await served.close();
  }
});

BodyHeap.run();
