/**
 * Conditional jumps poll the host's interrupt only when they jump back (build/engine/patches/
 * branches.ts): a loop whose only backward jump is its test (do … while, while) must still be
 * stopped by the host, and forward jumps must still branch as V8 does.
 */
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createEngineRunner, ensureEngine } from './index.ts';
import { engineWith, inV8 } from './v8-compare.ts';

const LOOPS = String.raw`globalThis.doWhile = () => { let x = 1; do { x = x + 1; } while (x < 2e7); Host.outputString('done ' + x); };
globalThis.whileLoop = () => { let x = 1; while (x < 2e7 && x !== 0) x = x + 1; Host.outputString('done ' + x); };
globalThis.ternaries = () => {
  const out = [];
  for (const v of [0, 1, -1, '', 'a', null, undefined, NaN, {}, [], 0n, 1n, 2.5, true, false]) {
    out.push(v ? 't' : 'f', !v ? 'n' : 'y', String(v && 'and'), String(v || 'or'));
    let k = 0;
    do { k++; } while (v && k < 3);
    out.push(k);
  }
  Host.outputString(JSON.stringify(out));
};`;

const branches = suite('engine :: conditional jumps (patches/branches.ts)');

branches('should stop a loop whose only backward jump is its test when the host interrupts', async () => {
  for (const fn of ['doWhile', 'whileLoop']) {
    let polls = 0;
    const r = await createEngineRunner(readFileSync((await ensureEngine()).wasmPath), { interrupt: () => ++polls > 3 });
    const c = r.compile(LOOPS);
    if (!c.ok) throw new Error(c.message);
    const res = r.invoke(c.bytecode, fn);
    assert.match(res.error ?? `completed: ${new TextDecoder().decode(res.output ?? new Uint8Array())}`, /^InternalError: interrupted/, fn);
    assert.ok(polls > 3, fn);
  }
});

branches('should branch on every kind of value as V8 does', async () => {
  const { run } = await engineWith(LOOPS);
  const v8 = JSON.parse(inV8(LOOPS, 'ternaries'));
  assert.equal(v8.slice(0, 5), ['f', 'n', '0', 'or', 1]);
  assert.equal(JSON.parse(run('ternaries')), v8);
});

branches.run();
