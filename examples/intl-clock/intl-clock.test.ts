import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { builtExample, REPO_ROOT } from '../testing/built.ts';
import { probeResults } from '../testing/probe-guest.ts';

type Answers = Record<string, unknown>;

/** Node's own answers (Intl, luxon, fflate) on the clock `env` gives (node-answers.ts). */
async function inNode(env: Record<string, string>): Promise<Answers> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'examples', 'intl-clock', 'node-answers.ts')], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
  return JSON.parse(stdout) as Answers;
}

// The wasm guest carries de besides en (mep build --locale de-DE); Europe/Paris it names itself.
const built = () => Promise.all([builtExample('intl-clock', 'wasm', { locales: ['de-DE'] }), builtExample('intl-clock', 'process')]);
const probes = suite('Intl and the clock :: luxon, Intl, fflate, jsonpath-plus alike in wasm, process and Node');

probes('should give the same answers on the fixed clock (SOURCE_DATE_EPOCH), fflate zipping with its default date', async () => {
  const [wasm, processed] = await built();
  const fixed = { sourceDateEpoch: 1_700_000_000 };
  const node = await inNode({ SOURCE_DATE_EPOCH: '1700000000' });
  assert.is(node.paris, 'November 14, 2023, 11:13 PM');
  assert.equal(node.jsonpath, ['a', 'c']);
  assert.is(node.number, '1.234.567,891');
  assert.equal(await probeResults<Answers>(wasm, fixed), node);
  assert.equal(await probeResults<Answers>(processed, fixed), node);
  // Without SOURCE_DATE_EPOCH: 2000-01-01T00:00:00Z in both runtimes.
  assert.equal(((await probeResults<Answers>(wasm)).utc as string).slice(0, 19), '2000-01-01T00:00:00');
});

probes('should give the same answers on the real clock, when granted', async () => {
  const [wasm, processed] = await built();
  const before = await inNode({ MEP_ALLOW_CLOCK: '1' });
  const answers = [await probeResults<Answers>(wasm, { clock: true }), await probeResults<Answers>(processed, { clock: true })];
  const after = await inNode({ MEP_ALLOW_CLOCK: '1' });
  // The minute may turn between the runs: each answer is Node's of before or of after.
  for (const a of answers) {
    assert.ok([before.paris, after.paris].includes(a.paris), `${String(a.paris)} vs ${String(before.paris)} / ${String(after.paris)}`);
    const { paris: _p, utc: _u, zip: _z, ...rest } = a;
    const { paris: _bp, utc: _bu, zip: _bz, ...expected } = before;
    assert.equal(rest, expected);
  }
});

probes.run();
