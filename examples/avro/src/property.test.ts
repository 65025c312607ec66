import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkModel, PropertyFailure } from './property-check.ts';
import { randomModel } from './random-ir.ts';
import { TEST_SEED, byTier } from '../../../fixtures/testing/tier.ts';

// 250 random models in `npm test`, starting at a seed that moves with MEP_TEST_SEED; 1,000 under
// `npm run test:long`; `AVRO_PROPERTY_MODELS=20000 npm test -- property` or `npm run fuzz` for more.
const MODELS = Number(process.env.AVRO_PROPERTY_MODELS ?? byTier(250, 1000));
const FIRST_SEED = Number(process.env.AVRO_PROPERTY_SEED ?? 1 + TEST_SEED * 1000);

const property = suite('avro :: property over random Morphir models');

property('should generate the same model for the same seed and different models for different seeds', () => {
  assert.equal(randomModel(7), randomModel(7));
  assert.not.equal(randomModel(7), randomModel(8));
});

property(`should give parseable, round-tripping, deterministic Avro for ${MODELS} random models (warn-and-skip)`, async () => {
  let artifacts = 0;
  let types = 0;
  let warnings = 0;
  for (let seed = FIRST_SEED; seed < FIRST_SEED + MODELS; seed++) {
    try {
      const outcome = await checkModel(seed);
      artifacts += outcome.artifacts;
      types += outcome.types;
      warnings += outcome.warnings;
    } catch (error) {
      if (error instanceof PropertyFailure) assert.unreachable(`${error.message}\nIR: ${JSON.stringify(error.ir)}`);
      throw error;
    }
  }
  // The generator must exercise the backend, not only its warnings.
  assert.ok(artifacts >= MODELS * 2, `only ${artifacts} artifacts from ${MODELS} models`);
  assert.ok(types >= artifacts, `only ${types} types checked`);
  assert.ok(warnings > 0, 'no model exercised warn-and-skip');
});

property.run();
