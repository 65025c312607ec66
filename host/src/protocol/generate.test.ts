import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Artifact, utf8Length } from './artifact.ts';
import { GenerateParams, GenerateResult } from './generate.ts';

const Params = suite('GenerateParams');

Params('should require a non-empty target and an IR object', () => {
  assert.ok(GenerateParams.safeParse({ ir: {}, target: 'avro', options: {} }).success);
  assert.ok(GenerateParams.safeParse({ ir: {}, target: 'avro' }).success);
  assert.not.ok(GenerateParams.safeParse({ ir: {}, options: {} }).success);
  assert.not.ok(GenerateParams.safeParse({ ir: {}, target: '' }).success);
  assert.not.ok(GenerateParams.safeParse({ target: 'avro' }).success);
  assert.not.ok(GenerateParams.safeParse({ ir: '{}', target: 'avro' }).success);
});

Params('should keep unknown members and the IR unchanged', () => {
  const ir = { formatVersion: 3, distribution: ['Library', [['morphir']], [], {}] };
  const p = GenerateParams.parse({ ir, target: 'avro', trace: 'x' });
  assert.equal(p.ir, ir);
  assert.is((p as Record<string, unknown>).trace, 'x');
});

Params.run();

const Artifacts = suite('Artifact');

Artifacts('should have exactly path, content and binary', () => {
  assert.ok(Artifact.safeParse({ path: 'a/b.avsc', content: '{}', binary: false }).success);
  assert.not.ok(Artifact.safeParse({ path: 'a/b.avsc', content: '{}', binary: false, mode: '0644' }).success);
  assert.not.ok(Artifact.safeParse({ path: 'a/b.avsc', content: '{}' }).success);
  assert.not.ok(Artifact.safeParse({ path: '', content: '{}', binary: false }).success);
});

Artifacts('should count UTF-8 bytes of long artifacts as the encoder writes them :: utf8Length', () => {
  for (const text of ['a'.repeat(5_000), `é€𝄞${'x'.repeat(2_000)}`, `${'\ud800x'.repeat(1_000)}\udc00`, `${'\udbff'.repeat(700)}\udfff${'😀'.repeat(600)}`]) {
    assert.is(utf8Length(text), new TextEncoder().encode(text).length);
  }
});

Artifacts.run();

const Result = suite('GenerateResult');

Result('should refuse a result whose artifact has an extra member', () => {
  const result = { success: true, artifacts: [{ path: 'x', content: '', binary: false }], diagnostics: [] };
  assert.ok(GenerateResult.safeParse(result).success);
  assert.not.ok(GenerateResult.safeParse({ ...result, artifacts: [{ path: 'x', content: '', binary: false, encoding: 'utf8' }] }).success);
});

Result.run();
