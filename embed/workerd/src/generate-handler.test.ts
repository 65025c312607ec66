import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { builtHostileGuest, hostileIr } from '../../testing/hostile-guest.ts';
import { createGenerateHandler } from './generate-handler.ts';

/**
 * `POST /` of the edge worker against hostile clients and a hostile backend, on Node's own fetch
 * `Request` (the worker's): what `mep generate` bounds on the Node host, the handler bounds too.
 */
const EMPTY_MODULE = new WebAssembly.Module(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
const post = (body: BodyInit, headers: Record<string, string> = {}): Request =>
  new Request('http://worker.example/?target=t', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, ...({ duplex: 'half' } as object) });
const errorOf = async (response: Response): Promise<{ code: unknown; message: string; data?: { limit?: string } }> => ((await response.json()) as { error: { code: unknown; message: string } }).error;

const Generate = suite('embed/workerd :: POST / (generate), hostile requests and backends');

Generate('should answer 413 to an IR body past maxBodyBytes, declared or chunked, reading no more of a chunked one than the bound', async () => {
  const handle = createGenerateHandler({ module: EMPTY_MODULE, name: 'avro.wasm', maxBodyBytes: 1024 });
  const declared = await handle(post('x'.repeat(2048)));
  assert.is(declared.status, 413);
  assert.match((await errorOf(declared)).message, /larger than 1024 bytes/);
  let pulled = 0;
  const chunk = new Uint8Array(1024).fill(0x20);
  const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (pulled++ < 1024 ? c.enqueue(chunk) : c.close()) }, { highWaterMark: 0 });
  assert.is((await handle(post(endless))).status, 413);
  assert.ok(pulled < 16, `read ${pulled} chunks of a body past the bound`);
});

Generate('should hold no more request bodies at once than maxBodiesBytes: a body that does not fit waits unread until one before it is answered', async () => {
  // Three clients each send 512 bytes of a chunked body and hold it open; the budget is two bodies.
  const handle = createGenerateHandler({ module: EMPTY_MODULE, name: 'avro.wasm', maxBodyBytes: 1024, maxBodiesBytes: 2048 });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const pulls = [0, 0, 0];
  const held = (i: number) =>
    new ReadableStream<Uint8Array>({ pull: async (c) => (pulls[i]! += 1) === 1 ? c.enqueue(new Uint8Array(512).fill(0x7b)) : (await gate, c.close()) }, { highWaterMark: 0 });
  const answers = [0, 1, 2].map((i) => handle(post(held(i))));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(pulls.map((n) => n > 0), [true, true, false], `pulled ${pulls}`);
  open();
  // Each is answered (not JSON: 400), the third once the first two were.
  assert.equal(await Promise.all(answers.map(async (a) => (await a).status)), [400, 400, 400]);
  assert.ok(pulls[2]! > 0);
});

Generate('should refuse an IR nested past the depth a request carries with 400 naming maxJsonDepth, before any session (not a stack overflow)', async () => {
  const handle = createGenerateHandler({ module: EMPTY_MODULE, name: 'avro.wasm' });
  for (const levels of [3_000, 100_000]) {
    const response = await handle(post(`{"formatVersion":3,"deep":${'['.repeat(levels)}${']'.repeat(levels)}}`));
    assert.is(response.status, 400, String(levels));
    const error = await errorOf(response);
    assert.is(error.code, 'ERR_LIMIT');
    assert.match(error.message, /nests more than \d+ levels/);
  }
});

Generate('should refuse a backend that returns artifact paths out of the output or hiding what they are, with 502 ERR_ARTIFACT and no artifact', async () => {
  const handle = createGenerateHandler({ module: new WebAssembly.Module(readFileSync(await builtHostileGuest())), name: 'hostile.wasm' });
  for (const path of ['../x', '/etc/passwd', 'a\u202Eb.txt', 'a\nb', 'C:/x', '.git/config']) {
    const response = await handle(post(hostileIr({ paths: ['ok.txt', path] })));
    const text = await response.text();
    assert.is(response.status, 502, `${JSON.stringify(path)}: ${text.slice(0, 200)}`);
    const error = (JSON.parse(text) as { error: { code: string; message: string } }).error;
    assert.is(error.code, 'ERR_ARTIFACT');
    assert.match(error.message, /unsafe artifact/);
    assert.not.match(text, /"artifacts"/);
  }
  assert.is((await handle(post(hostileIr({ paths: ['ok.txt'] })))).status, 200);
});

Generate('should run at most maxSessions requests at once, answering the next 503 ERR_LIMIT naming the limit, and free the slot after each answer', async () => {
  const handle = createGenerateHandler({ module: new WebAssembly.Module(readFileSync(await builtHostileGuest())), name: 'hostile.wasm', maxSessions: 2 });
  const answers = await Promise.all([0, 1, 2, 3].map(() => handle(post(hostileIr({})))));
  assert.equal(answers.map((a) => a.status).sort(), [200, 200, 503, 503]);
  const refused = await errorOf(answers.find((a) => a.status === 503)!);
  assert.is(refused.code, 'ERR_LIMIT');
  assert.match(refused.message, /maxSessions 2/);
  assert.is((await handle(post(hostileIr({})))).status, 200);
});

Generate('should stop a guest that never answers at its callTimeoutMs, inline, with 502 ERR_TIMEOUT naming the limit', async () => {
  // Edge runtimes have no thread to kill a guest with; the guest engine polls the host's interrupt, which the deadline sets.
  const handle = createGenerateHandler({ module: new WebAssembly.Module(readFileSync(await builtHostileGuest())), name: 'hostile.wasm', limits: { callTimeoutMs: 500 } });
  const started = performance.now();
  const response = await handle(post(hostileIr({ spin: true })));
  assert.is(response.status, 502);
  const error = await errorOf(response);
  assert.is(error.code, 'ERR_TIMEOUT');
  assert.match(error.message, /within 500 ms.*callTimeoutMs/);
  assert.ok(performance.now() - started < 10_000, `stopped after ${Math.round(performance.now() - started)} ms`);
});

Generate('should pass query options as mep generate passes --option: __proto__ an own option, a number no double holds as its text, and a key given twice refused', async () => {
  const handle = createGenerateHandler({ module: new WebAssembly.Module(readFileSync(await builtHostileGuest())), name: 'hostile.wasm' });
  const at = (query: string) => new Request(`http://worker.example/?target=t&${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: hostileIr({ echoOptions: true }) });
  const response = await handle(at('__proto__={"polluted":true}&big=1e400&flag=false'));
  const text = await response.text();
  assert.is(response.status, 200, text.slice(0, 300));
  const echoed = JSON.parse((JSON.parse(text) as { artifacts: { content: string }[] }).artifacts[0]!.content) as [string, unknown][];
  assert.equal(echoed, [['__proto__', { polluted: true }], ['big', '1e400'], ['flag', false]]);
  const twice = await handle(at('flag=false&flag=true'));
  assert.is(twice.status, 400);
  assert.match((await errorOf(twice)).message, /flag.*given twice/);
});

Generate.run();
