import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { validateArtifacts } from './validate.ts';
import { recoverOutput, writeArtifacts } from './write.ts';
import { makeFifo, unlessHung } from '../files/testing/special-files.ts';
import { directoryIdentity } from './journal-record.ts';

/** A pid no process has: that of a child that has exited and been reaped. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;

interface Fake {
  dir: string;
  out: string;
  staging: string;
  journal: string;
}

/**
 * An output `out` holding {old.txt: "old", kept.txt: "kept"} and a publication of
 * {old.txt: "new"} interrupted at `phase`; `arrange` moves the trees as far as the swap got.
 */
async function interrupted(phase: string, arrange: (fake: Fake) => Promise<void>, owner: { pid?: number; started?: string } = {}): Promise<Fake> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-journal-'));
  const fake: Fake = { dir, out: join(dir, 'out'), staging: join(dir, '.mep-staging-out-0badc0de'), journal: join(dir, '.mep-publish-out.json') };
  await mkdir(fake.out);
  await writeFile(join(fake.out, 'old.txt'), 'old');
  await writeFile(join(fake.out, 'kept.txt'), 'kept');
  await mkdir(join(fake.staging, 'new'), { recursive: true });
  await writeFile(join(fake.staging, 'new/old.txt'), 'new');
  await writeFile(join(fake.staging, 'new/kept.txt'), 'kept');
  // As the publication records it when the swap begins.
  const identity = phase === 'staging' ? {} : { identity: { staging: await directoryIdentity(fake.staging), fresh: await directoryIdentity(join(fake.staging, 'new')) } };
  const record = { format: 1, pid: owner.pid ?? deadPid(), host: hostname(), started: owner.started ?? new Date().toISOString(), output: fake.out, staging: '.mep-staging-out-0badc0de', phase, ...identity };
  await writeFile(fake.journal, JSON.stringify(record));
  await arrange(fake);
  return fake;
}

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

const OLD = { 'kept.txt': 'kept', 'old.txt': 'old' };
const NEW = { 'kept.txt': 'kept', 'old.txt': 'new' };
const moveAside = async (f: Fake) => rename(f.out, join(f.staging, 'old'));

const Recover = suite('recoverOutput :: an interrupted publication');

const cases: [string, string, (f: Fake) => Promise<void>, string, Record<string, string>][] = [
  ['killed while staging', 'staging', async () => undefined, 'undone', OLD],
  ['killed after the journal said "swapping", before any rename', 'swapping', async () => undefined, 'undone', OLD],
  ['killed between the two renames (no output at all)', 'swapping', moveAside, 'finished', NEW],
  ['killed after the swap, before the journal said so', 'swapping', async (f) => (await moveAside(f), rename(join(f.staging, 'new'), f.out)), 'cleaned', NEW],
  ['killed while removing the old tree', 'cleanup', async (f) => (await moveAside(f), rename(join(f.staging, 'new'), f.out)), 'cleaned', NEW],
];

for (const [what, phase, arrange, outcome, expected] of cases) {
  Recover(`should leave the old or the new tree and nothing beside it: ${what}`, async () => {
    const fake = await interrupted(phase, arrange);
    try {
      assert.is(await recoverOutput(fake.out), outcome);
      assert.equal(await tree(fake.out), expected);
      assert.equal(await readdir(fake.dir), ['out'], 'no journal, no staging tree');
      assert.is(await recoverOutput(fake.out), 'none', 'settled once');
    } finally {
      await rm(fake.dir, { recursive: true, force: true });
    }
  });
}

Recover('should settle an interrupted publication before the next write, and write on top of what it left', async () => {
  const fake = await interrupted('swapping', moveAside);
  try {
    await writeArtifacts(fake.out, validateArtifacts('ext', [{ path: 'more.txt', content: 'more', binary: false }]));
    assert.equal(await tree(fake.out), { ...NEW, 'more.txt': 'more' });
    assert.equal(await readdir(fake.dir), ['out']);
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Recover('should finish a half swap through a symbolic link to the output, dangling meanwhile', async () => {
  const fake = await interrupted('swapping', moveAside);
  try {
    await symlink('out', join(fake.dir, 'link'));
    assert.is(await recoverOutput(join(fake.dir, 'link')), 'finished');
    assert.equal(await tree(join(fake.dir, 'link')), NEW);
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Recover('should refuse while the owner of the journal runs, and touch nothing :: concurrency', async () => {
  // The test runner's parent runs, and started before this journal was written.
  const fake = await interrupted('swapping', moveAside, { pid: process.ppid });
  try {
    for (const attempt of [() => recoverOutput(fake.out), () => writeArtifacts(fake.out, validateArtifacts('ext', []))]) {
      const error = await attempt().then(() => undefined, (e: unknown) => e);
      assert.ok(isMepError(error));
      assert.is(error.code, LocalErrorCode.Usage);
      assert.is((error.data as { pid: number }).pid, process.ppid);
    }
    assert.not.ok(existsSync(fake.out), 'the half-swapped state is left to its owner');
    assert.ok(existsSync(join(fake.staging, 'new/old.txt')));
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Recover('should take a journal whose pid now belongs to a process started after it for a stale one :: pid reuse', async () => {
  if (process.platform !== 'linux') return;
  const fake = await interrupted('swapping', moveAside, { pid: process.ppid, started: '2001-01-01T00:00:00.000Z' });
  try {
    assert.is(await recoverOutput(fake.out), 'finished');
    assert.equal(await tree(fake.out), NEW);
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Recover('should finish a recovery that a killed process had claimed, and remove stale leftovers', async () => {
  const fake = await interrupted('swapping', moveAside);
  const dead = deadPid();
  try {
    await rename(fake.journal, `${fake.journal}.${dead}.recovering`);
    await writeFile(`${fake.journal}.${dead}.tmp`, '{"half": ');
    await mkdir(join(fake.dir, '.mep-staging-out-12345678/new'), { recursive: true });
    await mkdir(join(fake.dir, '.mep-staging-other-12345678'));
    await writeArtifacts(fake.out, validateArtifacts('ext', []));
    assert.equal(await tree(fake.out), NEW);
    assert.equal((await readdir(fake.dir)).sort(), ['.mep-staging-other-12345678', 'out'], "another output's staging is not this one's business");
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Recover('should refuse a journal mep did not write, and change nothing', async () => {
  const fake = await interrupted('swapping', moveAside);
  try {
    await writeFile(fake.journal, 'not json');
    const error = await recoverOutput(fake.out).then(() => undefined, (e: unknown) => e);
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Usage);
    assert.ok(existsSync(join(fake.staging, 'old/old.txt')));
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

const Foreign = suite('recoverOutput :: a journal or staging tree this mechanism did not create');

/** `[code, data.reason]` of the refusal of `promise`, or its outcome. */
const refusal = (promise: Promise<unknown>): Promise<unknown> => promise.then((v) => v, (e: { code?: unknown; data?: { reason?: unknown } }) => [e.code, e.data?.reason]);

Foreign('should refuse a crafted journal whose staging name is a symbolic link, and move nothing :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-journal-'));
  try {
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(join(elsewhere, 'new'), { recursive: true });
    await writeFile(join(elsewhere, 'new/secret.txt'), 'secret');
    await mkdir(join(dir, 'parent'));
    await symlink(elsewhere, join(dir, 'parent/.mep-staging-out-0badc0de'));
    const journal = join(dir, 'parent/.mep-publish-out.json');
    await writeFile(journal, JSON.stringify({ format: 1, pid: deadPid(), host: hostname(), started: new Date().toISOString(), output: join(dir, 'parent/out'), staging: '.mep-staging-out-0badc0de', phase: 'swapping' }));
    assert.equal(await refusal(recoverOutput(join(dir, 'parent/out'))), [LocalErrorCode.Usage, 'not-ours']);
    assert.ok(existsSync(join(elsewhere, 'new/secret.txt')), 'nothing moved from elsewhere');
    assert.not.ok(existsSync(join(dir, 'parent/out')));
    assert.equal((await readdir(join(dir, 'parent'))).sort(), ['.mep-publish-out.json', '.mep-staging-out-0badc0de'], 'left in place');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Foreign('should refuse a staging tree that is not the one its journal recorded :: hostile', async () => {
  const fake = await interrupted('swapping', moveAside);
  try {
    // The recorded tree replaced by another directory of the same name.
    await rename(fake.staging, `${fake.staging}.real`);
    await mkdir(join(fake.staging, 'new'), { recursive: true });
    await writeFile(join(fake.staging, 'new/planted.txt'), 'planted');
    assert.equal(await refusal(recoverOutput(fake.out)), [LocalErrorCode.Usage, 'not-ours']);
    assert.not.ok(existsSync(fake.out));
    assert.ok(existsSync(join(fake.staging, 'new/planted.txt')));
    assert.ok(existsSync(fake.journal));
  } finally {
    await rm(fake.dir, { recursive: true, force: true });
  }
});

Foreign('should refuse a FIFO for the journal without hanging, and leave it :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-journal-'));
  try {
    await mkdir(join(dir, 'out'));
    const journal = join(dir, '.mep-publish-out.json');
    makeFifo(journal);
    assert.equal(await unlessHung(refusal(recoverOutput(join(dir, 'out'))), [journal]), [LocalErrorCode.Usage, 'not-a-file']);
    assert.ok(existsSync(journal));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Recover.run();
Foreign.run();
