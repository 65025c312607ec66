/**
 * Long runs of the Avro property test (`npm run fuzz -- --models 50000 --seed 1`): the same
 * check as examples/avro/src/property.test.ts over more seeds, plus Apache Avro (Python) on every
 * self-contained JSON artifact in batches of 500 models, printing progress, and writing each
 * failing model to `.cache/fuzz/avro-seed-<seed>.json` so it can be replayed
 * (`AVRO_PROPERTY_SEED=<seed> AVRO_PROPERTY_MODELS=1 npm test -- property`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseWithApacheAvro } from './src/apache-avro.ts';
import { generateAvro } from './src/generate.ts';
import type { Artifact } from './src/json-syntax.ts';
import { checkModel, PropertyFailure, randomOptions } from './src/property-check.ts';
import { randomModel } from './src/random-ir.ts';
import { REPO_ROOT } from '../testing/built.ts';

const { values } = parseArgs({ options: { models: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' }, 'stop-after': { type: 'string', default: '10' } } });
const models = Number(values.models);
const first = Number(values.seed);
const stopAfter = Number(values['stop-after']);
if (!Number.isInteger(models) || models < 1 || !Number.isInteger(first) || !Number.isInteger(stopAfter)) {
  console.error('usage: npm run fuzz -- [--models N] [--seed S] [--stop-after F]');
  process.exit(2);
}
const dir = join(REPO_ROOT, '.cache', 'fuzz');
const started = Date.now();
let failures = 0;
let artifacts = 0;
let types = 0;
let batch: Pick<Artifact, 'path' | 'content'>[] = [];
const checkBatch = (): void => {
  for (const failure of parseWithApacheAvro(batch).failures) {
    failures++;
    console.log(`FAIL Apache Avro rejected ${failure.path}: ${failure.error}`);
  }
  batch = [];
};
for (let seed = first; seed < first + models; seed++) {
  try {
    const outcome = await checkModel(seed);
    artifacts += outcome.artifacts;
    types += outcome.types;
    const options = randomOptions(seed);
    if (options.representation === 'json' && options.dependencies === 'self-contained') {
      for (const a of generateAvro(randomModel(seed), options).artifacts) batch.push({ path: `seed-${seed}/${a.path}`, content: a.content });
    }
    if ((seed - first + 1) % 500 === 0) checkBatch();
  } catch (error) {
    if (!(error instanceof PropertyFailure)) throw error;
    failures++;
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `avro-seed-${seed}.json`);
    writeFileSync(file, `${JSON.stringify({ options: error.options, ir: error.ir }, null, 2)}\n`);
    console.log(`FAIL ${error.message}\n  model and options: ${file}`);
    if (failures >= stopAfter) break;
  }
  if ((seed - first + 1) % 1000 === 0) console.log(`${seed - first + 1} models, ${artifacts} artifacts, ${types} types, ${failures} failure(s), ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
checkBatch();
console.log(`fuzz: seeds ${first}..${first + models - 1}: ${failures} failure(s), ${artifacts} artifacts, ${types} types checked in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures === 0 ? 0 : 1);
