import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkArtifactPath } from '../../host/src/artifacts/validate.ts';
import { createContentLengthDecoder } from '../../host/src/framing/content-length.ts';
import { findExcessNesting } from '../../host/src/protocol/json-depth.ts';
import { parseMessage } from '../../host/src/rpc/message.ts';
import { FUZZ_TARGETS, runWireFuzz } from './wire-fuzz.ts';

// The long run: npm run fuzz -- --only wire --cases 2000000 --seed <S>.
const Fuzz = suite('wire fuzz :: 100,000 seeded cases against reference models');

Fuzz('should decode, classify and validate every generated input as the references do, with only typed errors :: fuzz', () => {
  const reports = runWireFuzz({ cases: 100_000, seed: 22 });
  assert.equal(reports.map((r) => r.target), Object.keys(FUZZ_TARGETS));
  assert.ok(reports.reduce((sum, r) => sum + r.cases, 0) >= 100_000);
  assert.equal(reports.flatMap((r) => r.failures), []);
});

Fuzz('should fail on planted faults: a decoder that loses a body, a classifier that takes null ids, a lax path check :: mutants', () => {
  const failuresWith = (subjects: Parameters<typeof runWireFuzz>[0]['subjects'], only: Parameters<typeof runWireFuzz>[0]['only']) =>
    runWireFuzz({ cases: 2_000, seed: 5, only, subjects, maxFailures: 1 }).flatMap((r) => r.failures).length;
  const losing: typeof createContentLengthDecoder = (options) => {
    const real = createContentLengthDecoder(options);
    let seen = 0;
    return { ...real, push: (chunk, onBody) => real.push(chunk, onBody && ((b) => void (seen++ === 1 || onBody(b)))), end: () => real.end(), bufferedBytes: 0 };
  };
  assert.is(failuresWith({ createContentLengthDecoder: losing }, ['content-length']), 1);
  assert.is(failuresWith({ parseMessage: (m) => ({ ...parseMessage(m), ...(m.id === null ? { kind: 'result', id: 0 } : {}) }) as ReturnType<typeof parseMessage> }, ['envelope']), 1);
  assert.is(failuresWith({ checkArtifactPath: (extension, path) => (path.endsWith('.') ? undefined : checkArtifactPath(extension, path)) }, ['artifact-paths']), 1);
  assert.is(failuresWith({ findExcessNesting: (text, max) => findExcessNesting(text, (max ?? 0) + 1) }, ['nesting']), 1);
  assert.is(failuresWith({}, ['content-length', 'envelope', 'artifact-paths', 'nesting']), 0);
});

Fuzz.run();
