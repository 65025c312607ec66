import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEdgeWorker } from './edge-worker.ts';

/**
 * The sample worker's guard, on Node's fetch `Request`: every refusal (and a bad body) is decided
 * before a session exists, so an empty module stands for the extension.
 */
const EMPTY_MODULE = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
const MEP_TOKEN = 'the-workers-secret-0123';
const post = (path: string, headers: Record<string, string> = {}): Request =>
  new Request(`http://worker.example${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"not json' });

const Worker = suite('embed/workerd :: the sample worker, guarded by its MEP_TOKEN secret');

Worker('should answer 401 on every route but /health without the secret token, and pass it through when presented', async () => {
  const worker = createEdgeWorker({ module: EMPTY_MODULE, name: 'avro' });
  for (const path of ['/', '/extensions/avro', '/mep', '/anything']) {
    for (const authorization of [undefined, `Bearer ${MEP_TOKEN}x`, 'Bearer ']) {
      const response = await worker.fetch(post(path, authorization ? { authorization } : {}), { MEP_TOKEN });
      assert.is(response.status, 401, `${path} ${authorization}`);
      assert.is(response.headers.get('www-authenticate'), 'Bearer realm="mep"');
    }
  }
  // The right token passes the guard: the unparseable body is what is refused.
  assert.is((await worker.fetch(post('/', { authorization: `Bearer ${MEP_TOKEN}` }), { MEP_TOKEN })).status, 400);
  assert.is((await worker.fetch(post('/mep', { authorization: `Bearer ${MEP_TOKEN}` }), { MEP_TOKEN })).status, 400);
  assert.is((await worker.fetch(new Request('http://worker.example/health'), { MEP_TOKEN })).status, 200);
  // An empty secret is a mistake, not "no token": it refuses everything.
  for (const authorization of ['Bearer ', `Basic ${btoa('user:')}`]) assert.is((await worker.fetch(post('/', { authorization }), { MEP_TOKEN: '' })).status, 401, authorization);
  // No secret bound: no token asked (a worker reachable only by its owner).
  assert.is((await worker.fetch(post('/'), {})).status, 400);
});

Worker.run();
