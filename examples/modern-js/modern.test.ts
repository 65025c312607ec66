import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ENGINE_QUICKJS_2021 } from '../../build/engine/testing/engine-version.ts';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { builtExample } from '../testing/built.ts';
import { builtProbeGuest, probeResults } from '../testing/probe-guest.ts';
import { ALL_PROBES, runProbes } from './literal.js';
import type { Outcome } from './probes.js';

type Results = Record<string, Outcome>;

/** What ECMAScript says each probe answers. */
const EXPECTED: Record<string, unknown> = {
  uEscape: [true, false],
  uEscapeLiteral: [true, false],
  dFlag: [[1, 3], [2, 3]],
  errorCause: ['outer', true, 'inner'],
  weakRef: [true, 1],
  finalizationRegistry: [true, false, 1],
  setMethods: [[1, 2, 3, 4], [3], [1, 2], true],
  iteratorHelpers: [[4, 6, 8], [5]],
  arrayFromAsync: [[1, 2], [3, 4]],
  promiseWithResolvers: 'resolved',
  timerOrder: ['sync', 'micro', 'then', 't1a', 't1a-micro', 't1b', 't0', 'nested'],
};
/** ES2024/2025 built-ins Node has from 22 on (this project supports Node 20, where they throw TypeError). */
const NEEDS_NODE_22 = ['setMethods', 'iteratorHelpers', 'arrayFromAsync', 'promiseWithResolvers'];
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
/**
 * What QuickJS 2021-03-27 does instead, probe by probe (the quickjs-ng engine answers every one
 * as ECMAScript says): refuses the RegExp, has no such global or method, or drops the cause.
 */
const ON_QUICKJS_2021: Results = {
  uEscape: { threw: 'SyntaxError' },
  dFlag: { threw: 'SyntaxError' },
  errorCause: { ok: ['outer', false, null] },
  weakRef: { threw: 'ReferenceError' },
  finalizationRegistry: { threw: 'ReferenceError' },
  setMethods: { threw: 'TypeError' },
  iteratorHelpers: { threw: 'TypeError' },
  arrayFromAsync: { threw: 'TypeError' },
  promiseWithResolvers: { threw: 'TypeError' },
};

function expectedIn(where: 'wasm' | 'process' | 'node', name: string): Outcome {
  if (where === 'wasm') return ENGINE_QUICKJS_2021 && name in ON_QUICKJS_2021 ? ON_QUICKJS_2021[name]! : { ok: EXPECTED[name] };
  return NODE_MAJOR < 22 && NEEDS_NODE_22.includes(name) ? { threw: 'TypeError' } : { ok: EXPECTED[name] };
}

/** The wasm guest: every probe, or on QuickJS 2021 all but the literal it cannot parse. */
const wasmGuest = (): Promise<string> => builtProbeGuest('modern-js', ENGINE_QUICKJS_2021 ? 'without-literal.ts' : undefined);
const resultsOf = (path: string): Promise<Results> => probeResults<Results>(path);

let cached: Promise<{ wasm: Results; process: Results; node: Results }> | undefined;
const all = () =>
  (cached ??= (async () => {
    const [wasmPath, processPath] = await Promise.all([wasmGuest(), builtExample('modern-js', 'process')]);
    const node = JSON.parse(JSON.stringify(await runProbes())) as Results; // as an artifact carries it
    return { wasm: await resultsOf(wasmPath), process: await resultsOf(processPath), node };
  })());

const modern = suite('modern JavaScript :: ES2021+ syntax and built-ins, wasm = process = Node');

modern(`should build a guest with the /[\\-]/u literal${ENGINE_QUICKJS_2021 ? ' (engine-blocked on QuickJS 2021: the build refuses exactly that literal)' : ''}`, async () => {
  if (ENGINE_QUICKJS_2021) {
    // Not skipped: the 2021 engine must refuse this RegExp, with ERR_BUILD, and nothing else.
    try {
      await builtExample('modern-js', 'wasm');
      assert.unreachable('the 2021 engine compiled /[\\-]/u');
    } catch (error) {
      assert.ok(isMepError(error) && error.code === LocalErrorCode.Build, String(error));
      assert.match(String((error as Error).message), /invalid escape sequence in regular expression/);
    }
    return;
  }
  assert.equal((await all()).wasm.uEscapeLiteral, { ok: EXPECTED.uEscapeLiteral });
});

for (const name of Object.keys(ALL_PROBES)) {
  modern(`should give ECMAScript's answer${NEEDS_NODE_22.includes(name) ? ' (Node 22+)' : ''} in wasm, process and Node :: ${name}`, async () => {
    const { wasm, process: proc, node } = await all();
    assert.equal(node[name], expectedIn('node', name), 'Node');
    assert.equal(proc[name], expectedIn('process', name), 'process');
    if (ENGINE_QUICKJS_2021 && name === 'uEscapeLiteral') {
      assert.is(wasm[name], undefined, 'engine-blocked (see the first test): the 2021 guest leaves it out');
      return;
    }
    assert.equal(wasm[name], expectedIn('wasm', name), `wasm${ENGINE_QUICKJS_2021 && name in ON_QUICKJS_2021 ? ' (QuickJS 2021: the known failure)' : ''}`);
  });
}

modern('should probe every feature the 2021 engine lacks, and nothing unexpected', () => {
  assert.equal(Object.keys(EXPECTED).sort(), Object.keys(ALL_PROBES).sort());
  assert.ok(Object.keys(ON_QUICKJS_2021).every((n) => n in EXPECTED));
});

modern.run();
