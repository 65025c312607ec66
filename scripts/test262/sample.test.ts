/**
 * The test262 differential on a seeded sample (the whole suite: `npm run test262`): the engine
 * built natively with and without the project's edits agree on every run, and the sandbox agrees
 * with them outside the harness limits documented in ./known.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runDifferential, sampleTests, type Difference } from './differential.ts';
import { parseConf } from './conf.ts';
import { judge } from './outcome.ts';
import { parseMeta } from './suite.ts';
import { byTier } from '../../fixtures/testing/tier.ts';
import { TEST_NATIVE_OPT } from '../../build/engine/opt-flags.ts';

// 150 files in `npm test`, 300 under `npm run test:long` (the whole suite: `npm run test262`).
const SAMPLE = Number(process.env.MEP_TEST262_SAMPLE ?? byTier(100, 300));
const SEED = Number(process.env.MEP_TEST262_SEED ?? 33);

const show = (diffs: Difference[]): string => diffs.map((d) => `${d.path} (${d.mode}): ${JSON.stringify(d.failures)}`).join('\n');

test('the conf: skipped features, a comment after a value, excluded folders and their exceptions', () => {
  const conf = parseConf('[config]\nmode=default\n[features]\nAtomics=!tcc # broken on tcc\nTemporal=skip\nBigInt\n[exclude]\n# intl\ntest262/test/intl402/\n!test262/test/intl402/keep/\n');
  assert.ok(conf.features.has('Atomics'));
  assert.ok(conf.features.has('BigInt'));
  assert.ok(conf.skipFeatures.has('Temporal'));
  assert.equal(conf.exclude, ['test262/test/intl402/']);
  assert.equal(conf.include, ['test262/test/intl402/keep/']);
});

test('front matter: lists inline and as blocks, and a negative test', () => {
  const meta = parseMeta('/*---\nincludes: [a.js, b.js]\nflags:\n  - onlyStrict\n  - async\nnegative:\n  phase: parse\n  type: SyntaxError\nfeatures: [Atomics]\n---*/');
  assert.equal(meta.includes, ['a.js', 'b.js']);
  assert.equal(meta.flags, ['onlyStrict', 'async']);
  assert.equal(meta.negative, { phase: 'parse', type: 'SyntaxError' });
  assert.equal(meta.features, ['Atomics']);
});

test('judging: a negative test needs its error type, an async test its completion line', () => {
  assert.ok(judge({ negative: 'SyntaxError', async: false }, { threw: true, printed: '', error: 'SyntaxError: unexpected token' }).pass);
  assert.not.ok(judge({ negative: 'SyntaxError', async: false }, { threw: true, printed: '', error: 'TypeError: x' }).pass);
  assert.not.ok(judge({ negative: 'SyntaxError', async: false }, { threw: false, printed: '', error: '' }).pass);
  assert.ok(judge({ async: true }, { threw: false, printed: 'Test262:AsyncTestComplete', error: '' }).pass);
  assert.not.ok(judge({ async: true }, { threw: false, printed: '', error: '' }).pass);
  assert.not.ok(judge({ async: true }, { threw: false, printed: 'Test262:AsyncTestFailure:Test262Error: no\nTest262:AsyncTestComplete', error: '' }).pass);
});

test(`test262 sample (${SAMPLE} files, seed ${SEED}): edited = unedited, sandbox = native outside the documented limits`, async () => {
  // At -O0: a clean checkout compiles both engines for these few files (./native.ts).
  const report = await runDifferential({ paths: sampleTests(SAMPLE, SEED), opt: TEST_NATIVE_OPT });
  assert.ok(report.counts.sandbox.runs > SAMPLE / 2, `only ${report.counts.sandbox.runs} runs in the sandbox`);
  assert.ok(report.counts.edited.passed > report.counts.edited.runs * 0.95, `natively ${report.counts.edited.passed}/${report.counts.edited.runs} passed`);
  assert.equal(report.editedVsUnedited.length, 0, `the edits change results:\n${show(report.editedVsUnedited)}`);
  assert.equal(report.sandboxOnlyFailures.length, 0, `sandbox-only failures:\n${show(report.sandboxOnlyFailures)}`);
});

test.run();
