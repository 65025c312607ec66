import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAgreement } from './agreement.ts';
import { jsonEqual } from './json-equal.ts';
import { elmClaimSet, elmInitializeResult } from './test-support.ts';

const Agreement = suite('checkAgreement');

Agreement('should agree when the session equals its claim set', () => {
  assert.equal(checkAgreement(elmInitializeResult(), elmClaimSet()), { ok: true });
});

Agreement('should agree when the session offers less than its claim set', () => {
  const init = elmInitializeResult();
  delete init.capabilities.workspace;
  delete init.capabilities.frontend?.fragments;
  assert.equal(checkAgreement(init, { ...elmClaimSet(), protocolVersions: ['0.1', '0.2'] }), { ok: true });
});

Agreement('should fail rule 1 when id, name or version differ', () => {
  for (const field of ['id', 'name', 'version'] as const) {
    const init = elmInitializeResult();
    init.extension[field] = 'other';
    const verdict = checkAgreement(init, elmClaimSet());
    assert.is(verdict.ok, false);
    if (!verdict.ok) {
      assert.is(verdict.rule, 1);
      assert.match(verdict.message, `extension.${field}`);
    }
  }
});

Agreement('should fail rule 2 when the negotiated version is not claimed', () => {
  const verdict = checkAgreement({ ...elmInitializeResult(), protocolVersion: '0.2' }, elmClaimSet());
  assert.equal(verdict.ok ? 0 : verdict.rule, 2);
});

Agreement('should fail rule 3 when the session reports a kind not among types', () => {
  const claims = elmClaimSet();
  claims.extension.types = ['frontend'];
  const verdict = checkAgreement(elmInitializeResult(), claims);
  assert.equal(verdict.ok ? 0 : verdict.rule, 3);
  if (!verdict.ok) assert.match(verdict.message, 'workspace');
});

Agreement('should fail rule 4 when a member has a different value', () => {
  const init = elmInitializeResult();
  init.capabilities.frontend!.irVersions = ['3', '4'];
  const verdict = checkAgreement(init, elmClaimSet());
  assert.equal(verdict.ok ? 0 : verdict.rule, 4);
  if (!verdict.ok) assert.match(verdict.message, 'capabilities.frontend.irVersions');
});

Agreement('should fail rule 4 when a member is absent from the claim set', () => {
  const claims = elmClaimSet();
  delete claims.capabilities.frontend!.fragments;
  const verdict = checkAgreement(elmInitializeResult(), claims);
  assert.equal(verdict.ok ? 0 : verdict.rule, 4);
  if (!verdict.ok) assert.match(verdict.message, 'capabilities.frontend.fragments');
});

Agreement('should fail rule 4 for a session-level member with another value', () => {
  const init = elmInitializeResult();
  init.capabilities.cancellation = true;
  const verdict = checkAgreement(init, elmClaimSet());
  assert.equal(verdict.ok ? 0 : verdict.rule, 4);
});

Agreement('should compare nested values deeply, not by identity', () => {
  const init = elmInitializeResult();
  init.capabilities.frontend!.languages = [{ id: 'elm', fileExtensions: ['.elm', '.elmx'] }];
  const verdict = checkAgreement(init, elmClaimSet());
  assert.equal(verdict.ok ? 0 : verdict.rule, 4);
  assert.equal(checkAgreement(JSON.parse(JSON.stringify(elmInitializeResult())), elmClaimSet()), { ok: true });
});

Agreement('should name the first failing rule only', () => {
  const init = { ...elmInitializeResult(), protocolVersion: '0.2' };
  init.extension = { ...init.extension, version: '9.9.9' };
  const verdict = checkAgreement(init, elmClaimSet());
  assert.equal(verdict.ok ? 0 : verdict.rule, 1);
});

Agreement.run();

const Equal = suite('jsonEqual');

Equal('should compare JSON structurally', () => {
  assert.ok(jsonEqual({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }));
  assert.ok(jsonEqual({ x: 1, y: 2 }, { y: 2, x: 1 }));
  assert.not.ok(jsonEqual([1, 2], [2, 1]));
  assert.not.ok(jsonEqual({ a: null }, {}));
  assert.not.ok(jsonEqual([], {}));
});

Equal.run();
