/**
 * The long kill test of publication (`npm run publish-kill -- --files 100000 --kills 40 --seed 1`):
 * the check of host/src/artifacts/publish-kill.test.ts with a large result and many seeded
 * kills (SIGINT, SIGTERM, SIGKILL, handled or not, mid-write or at each step of the swap).
 * Prints one line per kill and every failure; exits 1 when any output was not exactly the old
 * or the new tree.
 */
import { parseArgs } from 'node:util';
import { runPublishKills } from '../host/src/artifacts/testing/publish-kill.ts';

const { values } = parseArgs({ options: { files: { type: 'string', default: '100000' }, kills: { type: 'string', default: '40' }, seed: { type: 'string', default: '1' } } });
const files = Number(values.files);
const kills = Number(values.kills);
const seed = Number(values.seed);
if (!Number.isInteger(files) || files < 2 || !Number.isInteger(kills) || kills < 1 || !Number.isInteger(seed)) {
  console.error('usage: npm run publish-kill -- [--files N (>= 2)] [--kills K] [--seed S]');
  process.exit(2);
}
const started = Date.now();
const { failures, old, new: fresh } = await runPublishKills({ files, cases: kills, seed, log: (line) => console.log(`${((Date.now() - started) / 1000).toFixed(1)} s  ${line}`) });
for (const failure of failures) console.log(`FAIL ${failure}`);
console.log(`${kills} kills of a ${files}-file publication (seed ${seed}): ${old} left the old tree, ${fresh} the new one, ${failures.length} failed`);
process.exit(failures.length === 0 ? 0 : 1);
