import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Method } from '../protocol/methods.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { readEvents, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const generate = (id: number | string, options: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });

const post = (url: string, body: unknown, signal?: AbortSignal): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

/**
 * The cancel the host sends when a client leaves, within 10 s: the call's own deadline (30 s) also
 * sends one, so without this bound a server that never noticed the client passed these tests late.
 */
function cancelSent(served: Awaited<ReturnType<typeof startTestHttp>>): Promise<JsonRpcMessage> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no $/cancelRequest within 10 s of the client leaving: the server did not notice it')), 10_000);
  });
  return Promise.race([served.nextSent((m) => m.method === Method.CancelRequest), late]).finally(() => clearTimeout(timer));
}

const Stream = suite('mep serve --http :: SSE streaming');

Stream('should stream progress as events tagged with the client id, then the response, unbuffered by proxies', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const response = await post(served.listener.url, generate('g-1', { progress: true }));
    assert.is(response.status, 200);
    assert.is(response.headers.get('content-type'), 'text/event-stream');
    assert.is(response.headers.get('x-accel-buffering'), 'no');
    const events = await readEvents(response, () => undefined);
    const progress = events.filter((e) => e.method === Method.Progress);
    assert.equal(progress.map((e) => (e.params as { kind: string }).kind), ['begin', 'report', 'end']);
    for (const event of progress) assert.is((event.params as { requestId: unknown }).requestId, 'g-1');
    const last = events[events.length - 1] as JsonRpcMessage;
    assert.is(last.id, 'g-1');
    assert.ok((last.result as { success: boolean }).success);
  } finally {
    await served.close();
  }
});

Stream('should cancel the call at the extension when the client closes the stream', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const response = await post(served.listener.url, generate(0, { progress: true, delayMs: 60_000 }));
    // Close the stream once the call is running (its first progress event arrived).
    const events = await readEvents(response, (event) => event.method === Method.Progress);
    assert.is(events.length, 1);
    const cancel = await cancelSent(served);
    const generateSent = served.sent.find((m) => m.method === Method.BackendGenerate) as JsonRpcMessage;
    assert.equal(cancel.params, { id: generateSent.id });
    // The session is free again: the next call is answered at once, not after a minute.
    const next = await post(served.listener.url, generate(1, {}));
    const answer = await readEvents(next, () => undefined);
    assert.is(answer[answer.length - 1]?.id, 1);
  } finally {
    await served.close();
  }
});

Stream('should cancel a plain (JSON) call when the client aborts its request', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const controller = new AbortController();
    const call = fetch(served.listener.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(generate(0, { delayMs: 60_000 })), signal: controller.signal });
    await served.nextSent((m) => m.method === Method.BackendGenerate);
    controller.abort();
    await call.catch(() => undefined); // aborted on purpose
    const cancel = await cancelSent(served);
    assert.ok(cancel.params);
  } finally {
    await served.close();
  }
});

Stream.run();
