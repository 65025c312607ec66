import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { builtExample } from '../testing/built.ts';
import { probeResults } from '../testing/probe-guest.ts';
import { PROBES, runProbes, type Outcome } from './probes.ts';

type Results = Record<string, Outcome>;

// Built once (mep build's own buildGuest) for each runtime; Node runs the same probes in this process.
let cached: Promise<{ wasm: Results; process: Results; node: Results }> | undefined;
const all = () =>
  (cached ??= (async () => {
    const [wasm, processed] = await Promise.all([builtExample('regex-corpus', 'wasm'), builtExample('regex-corpus', 'process')]);
    return { wasm: await probeResults<Results>(wasm), process: await probeResults<Results>(processed), node: await runProbes() };
  })());

const corpus = suite('regex corpus :: npm packages with modern regexes, wasm = process = Node');

corpus('should run jsonpath-plus (v-flag regexes stock quickjs-ng 0.17 refused) and answer as Node', async () => {
  const { node, wasm } = await all();
  assert.equal(node.jsonpathFilters, { ok: [['Sayings of the Century', 'Moby Dick'], ['Herman Melville', 'J. R. R. Tolkien'], ['The Lord of the Rings']] });
  assert.equal(wasm.jsonpathFilters, node.jsonpathFilters);
  assert.equal(wasm.jsonpathPointer, { ok: '/store/book/0/title' });
});

for (const name of Object.keys(PROBES)) {
  corpus(`should give Node's answer in wasm and in process :: ${name}`, async () => {
    const { wasm, process: processed, node } = await all();
    assert.ok('ok' in node[name]!, `Node threw: ${JSON.stringify(node[name])}`);
    assert.equal(processed[name], node[name], 'process');
    assert.equal(wasm[name], node[name], 'wasm');
  });
}

corpus.run();
