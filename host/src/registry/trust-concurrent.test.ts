import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { withFileLock } from '../files/file-lock.ts';
import { registryPaths } from './paths.ts';
import { race, racer, withProject } from './test-support.ts';
import { readTrusted, recordTrusted, trustFileOf } from './trust.ts';

const Concurrent = suite('registry :: concurrent mep trust');
const sha = (n: number): string => n.toString(16).padStart(64, '0');

/** A process that records `count` trusted paths named `<tag>-<i>` once told to go. */
const recorder = (home: string, tag: string, count: number) =>
  racer(home, process.cwd(), `import { recordTrusted } from './host/src/registry/trust.ts';`, `for (let i = 0; i < ${count}; i++) await recordTrusted(paths, '/p/${tag}-' + i, '${sha(1)}')`);

Concurrent('should keep every entry two processes record at the same time (no lost update)', () =>
  withProject(async (t) => {
    const count = 40;
    assert.equal(await race([recorder(t.home, 'a', count), recorder(t.home, 'b', count)]), [0, 0]);
    const paths = (await readTrusted(registryPaths({ cwd: t.project }))).map((e) => e.path).sort();
    const expected = ['a', 'b'].flatMap((tag) => Array.from({ length: count }, (_, i) => `/p/${tag}-${i}`)).sort();
    assert.equal(paths, expected);
  }),
);

Concurrent('should take over the lock a killed mep left, and refuse with a typed error while a live one holds it', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    const lock = `${trustFileOf(paths)}.lock`;
    // A pid that is certainly gone: a child that has exited.
    const gone = spawn(process.execPath, ['-e', '0']);
    await once(gone, 'exit');
    await writeFile(lock, `${gone.pid}\n`);
    assert.ok(await recordTrusted(paths, '/p/after-a-crash', sha(2)));
    // Held by this live process (another mep's trust in progress): waited for, then refused.
    await writeFile(lock, `${process.ppid}\n`);
    const error = await withFileLock(lock, async () => 'ran', { what: 'the trust record', waitMs: 200 }).catch((e) => e);
    assert.equal([error.code, error.data?.reason, error.data?.lock], [LocalErrorCode.Usage, 'locked', lock]);
    assert.ok(error.message.includes(lock) && error.message.includes(String(process.ppid)), error.message);
  }),
);

Concurrent('should release the lock when the change throws', () =>
  withProject(async (t) => {
    const lock = join(t.home, 'x.lock');
    assert.is((await withFileLock(lock, async () => Promise.reject(new Error('boom')), { what: 'x' }).catch((e) => e)).message, 'boom');
    assert.is(await withFileLock(lock, async () => 'again', { what: 'x', waitMs: 100 }), 'again');
  }),
);

Concurrent.run();
