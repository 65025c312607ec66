import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CompileParams, normalizeCompileParams } from './compile-params.ts';
import { ErrorCode, isMepError } from './errors.ts';

const doc = { uri: 'file:///work/Example.elm', languageId: 'elm', version: 1, text: 'module Example exposing (add)\n' };
const base = { languageId: 'elm', package: { name: 'local/example', exposedModules: ['Example'] }, dependencies: [], options: { typesOnly: false, irVersion: '3' } };

function refusal(params: unknown): { code: unknown; message: string } {
  try {
    normalizeCompileParams(params);
  } catch (error) {
    assert.ok(isMepError(error));
    return { code: error.code, message: error.message };
  }
  assert.unreachable('expected a refusal');
  throw new Error('unreachable');
}

const Normalize = suite('normalizeCompileParams');

Normalize('should return the current envelope unchanged', () => {
  const params = { ...base, sources: { root: 'file:///work', documents: [doc] } };
  assert.equal(normalizeCompileParams(params), params);
});

Normalize('should move the legacy envelope into sources, root included', () => {
  const legacy = { ...base, documents: [doc], options: { ...base.options, sourceRootUri: 'file:///work' } };
  const normalized = normalizeCompileParams(legacy);
  assert.equal(normalized.sources, { root: 'file:///work', documents: [doc] });
  assert.equal(normalized.options, { typesOnly: false, irVersion: '3' });
  assert.not.ok('documents' in normalized);
});

Normalize('should read a legacy envelope without a root', () => {
  const normalized = normalizeCompileParams({ ...base, documents: [doc] });
  assert.equal(normalized.sources, { documents: [doc] });
});

Normalize('should keep unknown members', () => {
  const normalized = normalizeCompileParams({ ...base, sources: { documents: [{ ...doc, encoding: 'utf-8' }], label: 'x' }, trace: true });
  assert.is((normalized as Record<string, unknown>).trace, true);
  assert.is((normalized.sources as Record<string, unknown>).label, 'x');
  assert.is((normalized.sources.documents[0] as Record<string, unknown>).encoding, 'utf-8');
});

Normalize('should refuse both envelopes at once as ambiguous (-32602)', () => {
  const r = refusal({ ...base, documents: [doc], sources: { documents: [doc] } });
  assert.is(r.code, ErrorCode.InvalidParams);
  assert.match(r.message, 'ambiguous');
});

Normalize('should refuse sources combined with the legacy root', () => {
  const r = refusal({ ...base, sources: { documents: [doc] }, options: { sourceRootUri: 'file:///work' } });
  assert.is(r.code, ErrorCode.InvalidParams);
});

Normalize('should refuse neither envelope and malformed params (-32602)', () => {
  assert.is(refusal(base).code, ErrorCode.InvalidParams);
  assert.is(refusal(null).code, ErrorCode.InvalidParams);
  assert.is(refusal({ ...base, sources: { documents: [{ ...doc, version: -1 }] } }).code, ErrorCode.InvalidParams);
});

Normalize.run();

const Schema = suite('CompileParams');

Schema('should refuse both envelopes in the schema itself', () => {
  assert.not.ok(CompileParams.safeParse({ ...base, documents: [doc], sources: { documents: [doc] } }).success);
  assert.ok(CompileParams.safeParse({ ...base, documents: [doc] }).success);
  assert.ok(CompileParams.safeParse({ ...base, sources: { documents: [doc] } }).success);
});

Schema.run();
