import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { readLock, updateLock, writeLock } from './lock.ts';
import type { LockFile } from './lock.ts';

const Lock = suite('registry :: extensions.lock');
const sha = 'a'.repeat(64);

Lock('should round-trip every field and leave no temp file behind', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-lock-'));
  try {
    const path = join(dir, 'nested', 'extensions.lock');
    const lock: LockFile = {
      extensions: {
        'z.last': { version: '1.0.0', sha256: sha, runtime: 'wasm', claims: { claimsVersion: '0.1.0-draft.2' } },
        'acme.crm': { version: '1.2.0', sha256: sha, runtime: 'process', source: 'git@github.com:acme/mono.git//ext/crm#main', commit: '4a7d1ed414474e4033ac29ccb8653d9b1278fa8c', platform: 'linux-amd64' },
      },
    };
    await writeLock(path, lock);
    assert.equal(await readLock(path), lock);
    assert.equal(await readdir(join(dir, 'nested')), ['extensions.lock']);
    await updateLock(path, (l) => {
      delete l.extensions['z.last'];
    });
    assert.equal(Object.keys((await readLock(path)).extensions), ['acme.crm']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Lock('should load an older lock with only version and sha256, and a missing lock as empty', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-lock-'));
  try {
    const path = join(dir, 'extensions.lock');
    await writeFile(path, JSON.stringify({ extensions: { 'com.acme.crm': { version: '1.2.0', sha256: sha } } }));
    const lock = await readLock(path);
    assert.equal(lock.extensions['com.acme.crm'], { version: '1.2.0', sha256: sha });
    assert.equal(await readLock(join(dir, 'absent.lock')), { extensions: {} });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Lock('should refuse a malformed lock naming the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-lock-'));
  try {
    const path = join(dir, 'extensions.lock');
    await writeFile(path, JSON.stringify({ extensions: { x: { version: '1' } } }));
    const error = await readLock(path).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.is(error.data.lock, path);
    await writeFile(path, '{');
    assert.is((await readLock(path).catch((e) => e)).code, LocalErrorCode.Registry);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Lock.run();
