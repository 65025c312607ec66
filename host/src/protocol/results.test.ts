import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CompileResult } from './compile-result.ts';
import { TransformResult } from './transform.ts';
import { ValidateResult } from './validate.ts';

const Compile = suite('CompileResult');

Compile('should require ir and irVersion on success only', () => {
  const base = { diagnostics: [], modules: ['Example'] };
  assert.ok(CompileResult.safeParse({ ...base, success: true, irVersion: '3', ir: {} }).success);
  assert.not.ok(CompileResult.safeParse({ ...base, success: true, irVersion: '3' }).success);
  assert.not.ok(CompileResult.safeParse({ ...base, success: true, irVersion: ' ', ir: {} }).success);
  assert.not.ok(CompileResult.safeParse({ ...base, success: true, irVersion: '3', ir: null }).success);
  assert.ok(CompileResult.safeParse({ ...base, success: false, irVersion: '3', ir: null }).success);
  assert.ok(CompileResult.safeParse({ ...base, success: false }).success);
});

Compile('should refuse IR sent as a JSON-encoded string and unknown module statuses', () => {
  assert.not.ok(CompileResult.safeParse({ success: true, irVersion: '3', ir: '{}', diagnostics: [], modules: [] }).success);
  const moduleResults = [{ name: 'A', status: 'skipped' }];
  assert.not.ok(CompileResult.safeParse({ success: false, diagnostics: [], modules: [], moduleResults }).success);
});

Compile.run();

const Others = suite('ValidateResult, TransformResult');

Others('should follow the compile/generate shape', () => {
  assert.ok(ValidateResult.safeParse({ success: true, diagnostics: [] }).success);
  assert.not.ok(ValidateResult.safeParse({ diagnostics: [] }).success);
  assert.ok(TransformResult.safeParse({ success: true, irVersion: '3', ir: {}, diagnostics: [] }).success);
  assert.not.ok(TransformResult.safeParse({ success: true, diagnostics: [] }).success);
  assert.ok(TransformResult.safeParse({ success: false, diagnostics: [{ severity: 'error', message: 'no' }] }).success);
});

Others.run();
