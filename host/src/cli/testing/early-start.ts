/** Test helpers of the early start's tests (early-compile.test.ts, early-operation.test.ts). */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'uvu';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { keepShapeVerdicts } from '../../registry/shape-verdicts.ts';

/** The echo guest with a custom section of random bytes: a module no other test has compiled (the compile cache is per process). */
export function uniqueModule(): Uint8Array {
  const payload = Buffer.concat([Buffer.from([4]), Buffer.from('mep!'), randomBytes(16)]);
  return Buffer.concat([loadWatFixture('echo'), Buffer.from([0, payload.length]), payload]);
}

/**
 * Gives each test of `suite` a fresh folder (`folder()`, named `prefix`…) with `$MEP_HOME` in it,
 * and puts back `$MEP_HOME` and the shape verdicts' keeping after it.
 */
export function freshFolderEach(suite: Test, prefix: string, setup?: (root: string) => void): { folder(): string } {
  let root = '';
  const saved = process.env.MEP_HOME;
  suite.before.each(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
    process.env.MEP_HOME = join(root, 'home');
    setup?.(root);
  });
  suite.after.each(() => {
    keepShapeVerdicts(false);
    if (saved === undefined) delete process.env.MEP_HOME;
    else process.env.MEP_HOME = saved;
    rmSync(root, { recursive: true, force: true });
  });
  return { folder: () => root };
}
