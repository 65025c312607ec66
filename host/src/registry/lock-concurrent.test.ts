import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { parseExtensionId } from './extension-id.ts';
import { readLock, updateLock, writeLock } from './lock.ts';
import { registryPaths } from './paths.ts';
import { removeExtension } from './remove.ts';
import { racer, withProject } from './test-support.ts';
import { updateScopeLock } from './trust-lock.ts';

const Concurrent = suite('registry :: changes of extensions.lock: concurrent, blocked, too large');
const count = 30;
const ids = (tag: string): string[] => Array.from({ length: count }, (_, i) => `${tag}.e${i}`);
const sha = 'a'.repeat(64);

/** Pins `<tag>.e<i>` one after another, through the lock write `mep install` makes. */
const installer = (home: string, cwd: string, tag: string) =>
  racer(
    home,
    cwd,
    `import { updateScopeLock } from './host/src/registry/trust-lock.ts';`,
    `for (let i = 0; i < ${count}; i++) await updateScopeLock(paths, paths.user, (lock) => { lock.extensions['${tag}.e' + i] = { version: '1.0.0', sha256: '${sha}', runtime: 'wasm' }; }, '${tag}.e' + i)`,
  );

Concurrent('should keep every entry that concurrent installs add and drop every one a concurrent remove drops (no lost update)', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await writeLock(paths.user.lock, { extensions: Object.fromEntries(ids('c').map((id) => [id, { version: '1.0.0', sha256: sha }])) });
    // Another process installs while this one installs and removes (mep remove's own function).
    const other = installer(t.home, t.project, 'a');
    await other.ready;
    other.go();
    const [[code]] = await Promise.all([
      other.done,
      (async () => {
        for (const id of ids('b')) await updateScopeLock(paths, paths.user, (lock) => void (lock.extensions[parseExtensionId(id)] = { version: '1.0.0', sha256: sha, runtime: 'wasm' }), parseExtensionId(id));
      })(),
      (async () => {
        for (const id of ids('c')) await removeExtension(paths, id, 'user');
      })(),
    ]);
    assert.is(code, 0);
    const kept = Object.keys((await readLock(paths.user.lock)).extensions).sort();
    assert.equal(kept, [...ids('a'), ...ids('b')].sort());
  }),
);

Concurrent('should take over a lock file a cloned project ships naming a live pid (1), once it is older than any change takes :: hostile', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await mkdir(paths.project.root, { recursive: true });
    const shipped = `${paths.project.lock}.lock`;
    await writeFile(shipped, '1\n');
    const old = new Date(Date.now() - 120_000);
    await utimes(shipped, old, old);
    await updateLock(paths.project.lock, (lock) => {
      lock.extensions[parseExtensionId('acme.after')] = { version: '1.0.0', sha256: sha };
    });
    assert.equal(Object.keys((await readLock(paths.project.lock)).extensions), ['acme.after']);
    // Dated in the future (an archive can): as stale.
    await writeFile(shipped, '1\n');
    const future = new Date(Date.now() + 3_600_000);
    await utimes(shipped, future, future);
    await updateLock(paths.project.lock, (lock) => {
      delete lock.extensions[parseExtensionId('acme.after')];
    });
    assert.equal(Object.keys((await readLock(paths.project.lock)).extensions), []);
  }),
);

Concurrent('should refuse to write a lock larger than the host reads, keeping the one there: every later command would be refused :: hostile', () =>
  withProject(async (t) => {
    // A package of many files with long paths pins them all in `files`: two such packages (or one
    // under a raised --max-entries) wrote a lock past 16 MiB, which no command could read again.
    const paths = registryPaths({ cwd: t.project });
    await writeLock(paths.user.lock, { extensions: { [parseExtensionId('acme.kept')]: { version: '1.0.0', sha256: sha } } });
    const files = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`lib/${'d'.repeat(900)}/${i}.js`, sha]));
    const error = await updateLock(paths.user.lock, (lock) => {
      lock.extensions[parseExtensionId('acme.many')] = { version: '1.0.0', sha256: sha, files };
    }).catch((e: unknown) => e);
    assert.equal([(error as MepError).code, ((error as MepError).data as { limit?: string } | undefined)?.limit], [LocalErrorCode.Limit, 'lockBytes'], String(error));
    assert.equal(Object.keys((await readLock(paths.user.lock)).extensions), ['acme.kept'], 'the lock there is kept, and readable');
  }),
);

Concurrent.run();
