/**
 * Red team of the host's CPU per served body (issue 31): a client's message was parsed in slices,
 * then written again for the extension in one `JSON.stringify` inside the transport's send, whose
 * time follows the values: a 60 MB generate body of empty objects held the event loop every
 * client shares for 2.3 s in that one call (3.9 s with the collector, load 3). Now large params are
 * written ahead in slices (framing/json-sliced-stringify.ts) and spliced in.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSeededRandom, type SeededRandom } from '../../../fixtures/testing/random.ts';
import { TEST_SEED } from '../../../fixtures/testing/tier.ts';
import { preserialize, stringifySliced } from '../framing/json-sliced-stringify.ts';
import { stringifyMessage } from '../framing/json-text.ts';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const CpuPerBody = suite('mep serve :: CPU per body');

/** A random parsed-JSON value, with long arrays (runs written natively, and descents) now and then. */
function randomValue(random: SeededRandom, depth = 0): unknown {
  const kind = depth > 4 ? random.int(3) : random.int(6);
  if (kind === 0) return random.pick(['', 'a', 'é😀', '\u2028', '__proto__', '"\\']);
  if (kind === 1) return random.pick([0, -0, 1.5, 1e300, 9007199254740991]);
  if (kind === 2) return random.pick([true, false, null]);
  if (kind === 3 && random.chance(0.2)) return Array.from({ length: 3000 + random.int(6000) }, () => (random.chance(0.01) ? randomValue(random, depth + 1) : randomValue(random, 5)));
  if (kind === 3) return Array.from({ length: random.int(5) }, () => randomValue(random, depth + 1));
  const object: Record<string, unknown> = {};
  for (let i = random.int(5); i > 0; i--) Object.defineProperty(object, random.pick(['a', 'b', '__proto__', 'constructor', '']), { value: randomValue(random, depth + 1), enumerable: true, writable: true, configurable: true });
  if (random.chance(0.1)) object.gone = undefined;
  return object;
}

CpuPerBody('should write what JSON.stringify writes, in slices, letting the event loop turn', async () => {
  const random = createSeededRandom(TEST_SEED);
  for (let n = 0; n < 60; n++) {
    const value = randomValue(random);
    assert.is(await stringifySliced(value, { sliceValues: 1 + random.int(5000) }), JSON.stringify(value), `seed ${TEST_SEED}, case ${n}`);
  }
  const big = { ir: { formatVersion: 3 }, options: { pad: Array.from({ length: 300_000 }, () => ({})) } };
  const order: string[] = [];
  const written = preserialize(big).then(() => order.push('written'));
  setImmediate(() => order.push('another turn'));
  await written;
  assert.equal(order, ['another turn', 'written']);
  const message = { jsonrpc: '2.0', id: 'h1.1', method: 'morphir.backend.generate', params: big };
  assert.is(stringifyMessage(message), JSON.stringify(message));
  // A member replaced after it was written: the text is not used.
  (big as Record<string, unknown>).options = { pad: [] };
  assert.is(stringifyMessage(message), JSON.stringify(message));
});

CpuPerBody('should not write a served call\'s params for the extension in one JSON.stringify, and answer /health meanwhile :: slices', async () => {
  // The server's own thread parses and writes the body here (an edge worker, a socket client, a smaller body): no body worker.
  const served = await startTestHttp({ echo: wellBehaved }, { offThreadFromBytes: Infinity });
  const native = JSON.stringify;
  let largest = 0;
  try {
    const count = 600_000;
    const body = `{"jsonrpc":"2.0","id":1,"method":"morphir.backend.generate","params":{"ir":{"formatVersion":3,"distribution":["Library",[],[],{"modules":[]}]},"target":"echo","options":{"pad":[${'{},'.repeat(count - 1)}{}]}}}`;
    const socket = connect(served.listener.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const answered = new Promise<string>((resolve) => socket.on('data', () => /\r\n\r\n[\s\S]*\}$/.test(received) && resolve(received)));
    // Every JSON.stringify of the host from here on is measured by what it wrote.
    JSON.stringify = ((...args: Parameters<typeof native>) => {
      const out = native(...args);
      if (typeof out === 'string') largest = Math.max(largest, out.length);
      return out;
    }) as typeof native;
    socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const sent = await served.nextSent((m) => m.method === 'morphir.backend.generate');
    const order: string[] = [];
    const health = fetch(`${served.listener.url}/health`).then((response) => order.push(`health ${response.status}`));
    const answer = answered.then((text) => order.push(`body ${/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]}`));
    await Promise.all([health, answer]);
    JSON.stringify = native;
    assert.is(((sent.params as { options: { pad: unknown[] } }).options.pad).length, count);
    assert.match(received, /"success":true/);
    // Before, the transport wrote the whole message (1.8 MB, 600,000 values) in one call.
    assert.ok(largest < 256 * 1024, `one JSON.stringify wrote ${largest} characters`);
    assert.equal(order, ['health 200', 'body 200']);
    socket.destroy();
  } finally {
    JSON.stringify = native;
    await served.close();
  }
});

CpuPerBody.run();
