import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeParams, decodeResult } from './decode.ts';
import { ErrorCode, LocalErrorCode, isMepError } from './errors.ts';
import { GenerateParams, GenerateResult } from './generate.ts';

function thrown(fn: () => unknown): { code: unknown; message: string; data: { issues: { path: unknown[]; message: string }[] } } {
  try {
    fn();
  } catch (error) {
    assert.ok(isMepError(error));
    return { code: error.code, message: error.message, data: error.data as never };
  }
  assert.unreachable('expected a throw');
  throw new Error('unreachable');
}

const DecodeParams = suite('decodeParams');

DecodeParams('should return the parsed value, unknown members kept', () => {
  const params = decodeParams(GenerateParams, { ir: {}, target: 'avro', extra: 1 }, 'morphir.backend.generate');
  assert.is(params.target, 'avro');
  assert.is((params as Record<string, unknown>).extra, 1);
});

DecodeParams('should throw InvalidParams naming what, with JSON-safe issues', () => {
  const e = thrown(() => decodeParams(GenerateParams, { ir: {} }, 'morphir.backend.generate'));
  assert.is(e.code, ErrorCode.InvalidParams);
  assert.match(e.message, 'morphir.backend.generate');
  assert.equal(e.data.issues[0].path, ['target']);
  assert.equal(JSON.parse(JSON.stringify(e.data)), e.data);
});

DecodeParams.run();

const DecodeResult = suite('decodeResult');

DecodeResult('should throw ERR_PROTOCOL for a malformed result', () => {
  const e = thrown(() => decodeResult(GenerateResult, { success: true, artifacts: 'none', diagnostics: [] }, 'the generate result'));
  assert.is(e.code, LocalErrorCode.Protocol);
  assert.match(e.message, 'the generate result');
  assert.equal(e.data.issues[0].path, ['artifacts']);
});

DecodeResult.run();
