import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkHostRequirement } from './host-requirement.ts';
import { elmClaimSet } from './test-support.ts';
import type { ClaimSet } from './claim-set.ts';

const requiring = (...host: string[]): ClaimSet => ({ ...elmClaimSet(), requires: { host } });
const ok = (claims: ClaimSet, version: string): boolean => checkHostRequirement(claims, version).ok;

const Requirement = suite('checkHostRequirement');

Requirement('should accept when there is no requires.host', () => {
  assert.ok(ok({ ...elmClaimSet(), requires: undefined }, '0.0.1'));
  assert.ok(ok(requiring(), '0.0.1'));
});

Requirement('should accept a host inside every comparator', () => {
  const claims = requiring('>=0.4.0', '<0.5.0');
  assert.ok(ok(claims, '0.4.0'));
  assert.ok(ok(claims, '0.4.9'));
});

Requirement('should refuse a host outside the range, naming the range and comparator', () => {
  const claims = requiring('>=0.4.0', '<0.5.0');
  const verdict = checkHostRequirement(claims, '0.5.0');
  assert.is(verdict.ok, false);
  if (!verdict.ok) {
    assert.equal(verdict.range, ['>=0.4.0', '<0.5.0']);
    assert.is(verdict.comparator, '<0.5.0');
    assert.match(verdict.message, '[">=0.4.0","<0.5.0"]');
    assert.match(verdict.message, 'morphir-elm');
  }
  assert.not.ok(ok(claims, '0.3.9'));
});

Requirement('should order prereleases: alpha.7 <= beta.1 < release', () => {
  const claims = requiring('>=0.4.0-alpha.7');
  assert.ok(ok(claims, '0.4.0-alpha.7'));
  assert.ok(ok(claims, '0.4.0-beta.6'));
  assert.ok(ok(claims, '0.4.0'));
  assert.ok(ok(claims, '1.2.3'));
  assert.not.ok(ok(claims, '0.4.0-alpha.6'));
});

Requirement('should refuse a prerelease host of another major.minor.patch (Rust semver and node-semver agree)', () => {
  assert.not.ok(ok(requiring('>=0.4.0-alpha.7'), '0.5.0-alpha.1'));
  assert.not.ok(ok(requiring('>=0.4.0'), '0.4.1-rc.1'));
  assert.ok(ok(requiring('>=0.4.0', '<0.5.0-0'), '0.4.5'));
});

Requirement('should refuse comparators that are not single, unambiguous comparators', () => {
  for (const bad of ['^0.4.0', '~0.4.0', '0.4.0', '>=0.4', '0.4.x', '>=0.4.0 <0.5.0', '', 'latest', '>=v0.4.0']) {
    const verdict = checkHostRequirement(requiring(bad), '0.4.0');
    assert.is(verdict.ok, false, bad);
    if (!verdict.ok) assert.is(verdict.comparator, bad);
  }
});

Requirement('should refuse an unreadable host version', () => {
  assert.not.ok(ok(requiring('>=0.4.0'), 'dev'));
});

Requirement.run();
