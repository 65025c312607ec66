import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createShapeVerdicts, keepShapeVerdicts, keptShapeVerdicts, shapeVerdictsDirectory, shapeVerdictsWritten } from './shape-verdicts.ts';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const RULES = 'walk 1, bounds 0123abcd';

const store = suite('shape verdicts in $MEP_HOME');
let dir = '';
store.before.each(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'mep-verdicts-')), 'cache', 'wasm-shape');
});
store.after.each(() => rmSync(join(dir, '..', '..'), { recursive: true, force: true }));

store('should keep a verdict for one hash under one set of rules, readable by the user only', async () => {
  const verdicts = createShapeVerdicts(dir);
  assert.is(await verdicts.has(A, RULES), false);
  await verdicts.add(A, RULES);
  assert.is(await verdicts.has(A, RULES), true);
  assert.is(await verdicts.has(B, RULES), false);
  assert.is(await verdicts.has(A, 'walk 2, bounds 0123abcd'), false);
  if (process.platform !== 'win32') assert.is((await import('node:fs')).statSync(join(dir, A)).mode & 0o077, 0);
  // Under new rules the same hash's file is replaced, not added beside.
  await verdicts.add(A, 'walk 2, bounds 0123abcd');
  assert.is(await verdicts.has(A, 'walk 2, bounds 0123abcd'), true);
  assert.is(await verdicts.has(A, RULES), false);
  assert.equal(readdirSync(dir), [A]);
});

store('should not trust a verdict file it did not write for exactly that hash :: hostile', async () => {
  const verdicts = createShapeVerdicts(dir);
  await verdicts.add(A, RULES);
  // Another hash's verdict renamed (or linked) to this hash: its text names the other hash.
  renameSync(join(dir, A), join(dir, B));
  assert.is(await verdicts.has(B, RULES), false);
  linkSync(join(dir, B), join(dir, A));
  assert.is(await verdicts.has(A, RULES), true);
  rmSync(join(dir, A));
  // Hand-written text, a link to a good verdict, a folder, extra text: all not a verdict.
  writeFileSync(join(dir, A), 'ok\n', { mode: 0o600 });
  assert.is(await verdicts.has(A, RULES), false);
  rmSync(join(dir, A));
  await verdicts.add(B, RULES);
  symlinkSync(join(dir, B), join(dir, A));
  assert.is(await verdicts.has(A, RULES), false);
  rmSync(join(dir, A));
  mkdirSync(join(dir, A));
  assert.is(await verdicts.has(A, RULES), false);
  rmSync(join(dir, A), { recursive: true });
  await verdicts.add(A, RULES);
  writeFileSync(join(dir, A), `${readFileSync(join(dir, A), 'utf8')}more\n`);
  assert.is(await verdicts.has(A, RULES), false);
});

store('should not trust a verdict others could have written (group- or world-writable) :: hostile', async () => {
  if (process.platform === 'win32') return;
  const verdicts = createShapeVerdicts(dir);
  await verdicts.add(A, RULES);
  chmodSync(join(dir, A), 0o622);
  assert.is(await verdicts.has(A, RULES), false);
  chmodSync(join(dir, A), 0o600);
  assert.is(await verdicts.has(A, RULES), true);
});

store('should refuse a hash that is not 64 lowercase hex digits, writing nothing :: hostile', async () => {
  const verdicts = createShapeVerdicts(dir);
  for (const bad of ['../../config.json', `${'a'.repeat(63)}/`, 'A'.repeat(64), '']) {
    await verdicts.add(bad, RULES);
    assert.is(await verdicts.has(bad, RULES), false, bad);
  }
  assert.is(existsSync(dir), false);
});

store('should keep at most maxEntries verdicts, dropping the oldest first', async () => {
  const verdicts = createShapeVerdicts(dir, { maxEntries: 4 });
  const hashes = ['1', '2', '3', '4', '5'].map((d) => d.repeat(64));
  for (const [i, hash] of hashes.entries()) {
    await verdicts.add(hash, RULES);
    // Each one older than the next, whatever the clock's resolution.
    utimesSync(join(dir, hash), 1_000_000 + i, 1_000_000 + i);
  }
  const left = readdirSync(dir).sort();
  assert.ok(left.length <= 4, left.join(' '));
  assert.not.ok(left.includes(hashes[0] as string));
  assert.ok(left.includes(hashes[4] as string));
  assert.is(await verdicts.has(hashes[4] as string, RULES), true);
});

store('should be off until the command keeps them, in $MEP_HOME/cache/wasm-shape', () => {
  keepShapeVerdicts(false);
  assert.is(keptShapeVerdicts(), undefined);
  keepShapeVerdicts(true);
  assert.ok(keptShapeVerdicts());
  keepShapeVerdicts(false);
  assert.is(shapeVerdictsDirectory({ cwd: '/work', env: { MEP_HOME: '/home/u/.mep' } }), join('/home/u/.mep', 'cache', 'wasm-shape'));
});

store('should let the command wait for verdicts still being written before it returns', async () => {
  // Launches write a verdict without waiting (module.ts): `mep` returned, or exited, while it was
  // still being written; a caller removing its home then raced it (ENOTEMPTY), an exit left a `.tmp`.
  const saved = { home: process.env.MEP_HOME, kept: keptShapeVerdicts() !== undefined };
  process.env.MEP_HOME = join(dir, '..', '..');
  keepShapeVerdicts(true);
  try {
    void (keptShapeVerdicts() as NonNullable<ReturnType<typeof keptShapeVerdicts>>).add(A, RULES);
    await shapeVerdictsWritten();
    assert.equal(existsSync(dir) ? readdirSync(dir) : [], [A]);
  } finally {
    keepShapeVerdicts(saved.kept);
    if (saved.home === undefined) delete process.env.MEP_HOME;
    else process.env.MEP_HOME = saved.home;
  }
});

store.run();
