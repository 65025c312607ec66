import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { claimSetFromSession, parseClaimSet } from './claim-set.ts';
import { LocalErrorCode, isMepError } from './errors.ts';
import { CLAIMS_VERSION } from './methods.ts';
import { elmClaimSet, elmInitializeResult } from './test-support.ts';

function refusal(doc: unknown): { code: unknown; message: string; data: Record<string, unknown> } {
  try {
    parseClaimSet(doc);
  } catch (error) {
    assert.ok(isMepError(error));
    return { code: error.code, message: error.message, data: error.data as Record<string, unknown> };
  }
  assert.unreachable('expected parseClaimSet to refuse');
  throw new Error('unreachable');
}

const Parse = suite('parseClaimSet');

Parse('should read a draft.2 claim set and keep unknown members', () => {
  const doc = { ...elmClaimSet(), publisher: 'finos', capabilities: { ...elmClaimSet().capabilities, streaming: false, lint: { rules: 3 } } };
  const claims = parseClaimSet(doc);
  assert.is(claims.claimsVersion, CLAIMS_VERSION);
  assert.is((claims as Record<string, unknown>).publisher, 'finos');
  assert.equal((claims.capabilities as Record<string, unknown>).lint, { rules: 3 });
  assert.equal(claims.capabilities.frontend?.irVersions, ['3']);
});

Parse('should convert a draft.1 statement (statementVersion) to draft.2', () => {
  const { claimsVersion: _, ...rest } = elmClaimSet();
  const claims = parseClaimSet({ statementVersion: '0.1.0-draft.1', ...rest });
  assert.is(claims.claimsVersion, '0.1.0-draft.2');
  assert.not.ok('statementVersion' in claims);
  assert.equal(claims.requires, { host: ['>=0.4.0-alpha.7'] });
  assert.equal(claims.extension.types, ['frontend', 'workspace']);
});

Parse('should refuse an unknown capability kind, naming it', () => {
  const doc = elmClaimSet();
  (doc.extension.types as string[]).push('linter');
  const r = refusal(doc);
  assert.is(r.code, LocalErrorCode.ClaimsMismatch);
  assert.is(r.data.kind, 'linter');
  assert.match(r.message, 'linter');
});

Parse('should refuse a critical path it does not understand, naming it', () => {
  const doc = { ...elmClaimSet(), critical: ['requires.host', 'requires.os'] };
  const r = refusal(doc);
  assert.is(r.code, LocalErrorCode.ClaimsMismatch);
  assert.is(r.data.path, 'requires.os');
});

Parse('should accept requires.host as a critical path', () => {
  assert.equal(parseClaimSet(elmClaimSet()).critical, ['requires.host']);
});

Parse('should ignore an unknown member that is not critical', () => {
  const claims = parseClaimSet({ ...elmClaimSet(), requires: { host: ['>=0.4.0'], os: ['linux'] } });
  assert.equal((claims.requires as Record<string, unknown>).os, ['linux']);
});

Parse('should refuse a prerelease claimsVersion it does not know exactly', () => {
  for (const claimsVersion of ['0.1.0-draft.3', '0.1.0-draft.1', '0.1.0', '1.0.0-draft.1']) {
    const r = refusal({ ...elmClaimSet(), claimsVersion });
    assert.is(r.code, LocalErrorCode.ClaimsMismatch);
    assert.is(r.data.claimsVersion, claimsVersion);
  }
  const { claimsVersion: _, ...rest } = elmClaimSet();
  assert.is(refusal({ ...rest, statementVersion: '0.1.0-draft.2' }).data.statementVersion, '0.1.0-draft.2');
});

Parse('should refuse a document with both version members, or none', () => {
  assert.is(refusal({ ...elmClaimSet(), statementVersion: '0.1.0-draft.1' }).code, LocalErrorCode.ClaimsMismatch);
  const { claimsVersion: _, ...none } = elmClaimSet();
  assert.is(refusal(none).code, LocalErrorCode.ClaimsMismatch);
});

Parse('should refuse a malformed claim set with JSON-safe issues', () => {
  const r = refusal({ ...elmClaimSet(), protocolVersions: '0.1' });
  assert.is(r.code, LocalErrorCode.ClaimsMismatch);
  const issues = r.data.issues as { path: unknown[] }[];
  assert.equal(issues[0].path, ['protocolVersions']);
  assert.is(JSON.parse(JSON.stringify(r.data)).issues.length, issues.length);
  assert.is(refusal(null).code, LocalErrorCode.ClaimsMismatch);
});

Parse.run();

const FromSession = suite('claimSetFromSession');

FromSession('should list only the negotiated version and derive types from kinds present', () => {
  const claims = claimSetFromSession(elmInitializeResult());
  assert.equal(claims.protocolVersions, ['0.1']);
  assert.equal(claims.extension, { id: 'morphir-elm', name: 'Morphir Elm frontend', version: '0.3.0', types: ['frontend', 'workspace'] });
  assert.is(claims.requires, undefined);
  assert.is(claims.critical, undefined);
  assert.equal(claims.capabilities, elmInitializeResult().capabilities);
  assert.equal(parseClaimSet(claims), claims);
});

FromSession('should not count session features or unknown members as kinds', () => {
  const init = elmInitializeResult();
  delete init.capabilities.workspace;
  (init.capabilities as Record<string, unknown>).telemetry = { enabled: false };
  assert.equal(claimSetFromSession(init).extension.types, ['frontend']);
});

FromSession.run();
