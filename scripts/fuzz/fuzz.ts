/**
 * `npm run fuzz`: the long fuzz runs, both by default.
 * - wire: the framing/envelope fuzz of scripts/fuzz/ (Content-Length and ndjson
 *   decoders, body decoding and envelope classification, the nesting bound, artifact paths)
 *   against its reference models; `npm test` runs 100,000 cases of seed 22, this runs more.
 * - avro: the Avro property test over many models (examples/avro/fuzz.ts, with Apache Avro).
 *
 *   npm run fuzz -- [--only wire|avro] [--seed S] [--cases N] [--targets content-length,ndjson,…]
 *                   [--case N] [--models N] [--stop-after F]
 *
 * --cases, --targets and --case (replay one failing case) are the wire fuzz's; --models and
 * --stop-after the Avro fuzz's; --seed is both's. Exits 1 when anything failed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FUZZ_TARGETS, runWireFuzz, type FuzzTarget } from './wire-fuzz.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    seed: { type: 'string', default: '1' },
    cases: { type: 'string', default: '1000000' },
    targets: { type: 'string' },
    case: { type: 'string' },
    models: { type: 'string' },
    'stop-after': { type: 'string' },
  },
});
const usage = (problem: string): never => {
  console.error(`npm run fuzz: ${problem}\nusage: npm run fuzz -- [--only wire|avro] [--seed S] [--cases N] [--targets ${Object.keys(FUZZ_TARGETS).join(',')}] [--case N] [--models N] [--stop-after F]`);
  process.exit(2);
};
const integer = (name: string, value: string | undefined, min: number): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  return Number.isInteger(n) && n >= min ? n : usage(`--${name} must be an integer of at least ${min}`);
};
if (values.only !== undefined && values.only !== 'wire' && values.only !== 'avro') usage('--only takes wire or avro');
const seed = integer('seed', values.seed, -(2 ** 31)) as number;
const targets = values.targets?.split(',').map((t) => (t in FUZZ_TARGETS ? (t as FuzzTarget) : usage(`unknown target ${t}`)));
let failed = false;

if (values.only !== 'avro') {
  const cases = integer('cases', values.cases, 1) as number;
  const started = Date.now();
  const reports = runWireFuzz({ cases, seed, ...(targets ? { only: targets } : {}), ...(values.case !== undefined ? { caseNumber: integer('case', values.case, 0) } : {}) });
  for (const report of reports) {
    console.log(`wire fuzz ${report.target}: ${report.cases} cases, ${report.failures.length} failure(s)`);
    for (const failure of report.failures) console.log(`FAIL ${failure}`);
    failed ||= report.failures.length > 0;
  }
  console.log(`wire fuzz: seed ${seed}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (values.only !== 'wire') {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const args = ['--seed', String(seed), ...(values.models ? ['--models', values.models] : []), ...(values['stop-after'] ? ['--stop-after', values['stop-after']] : [])];
  const avro = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'examples/avro/fuzz.ts'), ...args], { cwd: root, stdio: 'inherit' });
  failed ||= avro.status !== 0;
}
process.exit(failed ? 1 : 0);
