import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { makeTarGz, makeZip } from '../test-support.ts';
import type { TestEntry } from '../test-support.ts';
import { DEFAULT_ARCHIVE_LIMITS } from './budget.ts';
import { extractArchive } from './extract.ts';

const run = promisify(execFile);

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-archive-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Extracts `bytes` (saved beside `root`) into `root`; resolves to the error, if any. */
async function extract(dir: string, format: 'tar.gz' | 'zip', bytes: Uint8Array, root = join(dir, 'out')): Promise<{ code?: string; data?: Record<string, unknown> } | undefined> {
  const file = join(dir, `archive.${format}`);
  await writeFile(file, bytes);
  await mkdir(root, { recursive: true });
  return extractArchive({ file, format, root, archive: `test.${format}`, limits: DEFAULT_ARCHIVE_LIMITS }).then(
    () => undefined,
    (e) => e,
  );
}

const Read = suite('registry :: archive readers');

Read('should read a tar.gz written by the system tar (directories, files, modes, long names)', () =>
  inTemp(async (dir) => {
    const long = `pkg/${'d'.repeat(120)}/${'f'.repeat(120)}.txt`;
    await mkdir(join(dir, 'src', long, '..'), { recursive: true });
    await writeFile(join(dir, 'src/pkg/extension.json'), '{"id":"x"}');
    await mkdir(join(dir, 'src/pkg/bin'));
    await writeFile(join(dir, 'src/pkg/bin/run'), 'ünïcode', { mode: 0o755 });
    await writeFile(join(dir, 'src', long), 'long');
    for (const format of ['gnu', 'posix']) {
      await run('tar', [`--format=${format}`, '-czf', join(dir, 'p.tgz'), '-C', join(dir, 'src'), 'pkg']);
      const root = join(dir, `out-${format}`);
      assert.is(await extract(dir, 'tar.gz', new Uint8Array(await readFile(join(dir, 'p.tgz'))), root), undefined);
      assert.is(await readFile(join(root, 'pkg/bin/run'), 'utf8'), 'ünïcode');
      assert.is((await stat(join(root, 'pkg/bin/run'))).mode & 0o111, 0o111);
      assert.is(await readFile(join(root, long), 'utf8'), 'long', format);
    }
  }),
);

Read('should read a zip written by the system zip, and our own deflated one', () =>
  inTemp(async (dir) => {
    await mkdir(join(dir, 'pkg'));
    await writeFile(join(dir, 'pkg/extension.json'), '{"id":"x"}'.repeat(50));
    try {
      await run('zip', ['-qr', join(dir, 'p.zip'), 'pkg'], { cwd: dir });
      assert.is(await extract(dir, 'zip', new Uint8Array(await readFile(join(dir, 'p.zip'))), join(dir, 'sys')), undefined);
      assert.is(await readFile(join(dir, 'sys/pkg/extension.json'), 'utf8'), '{"id":"x"}'.repeat(50));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // no zip binary: the next check still runs
    }
    assert.is(await extract(dir, 'zip', makeZip([{ path: 'a/b.txt', data: 'hello' }, { path: 'a/l', link: 'b.txt' }, { path: 'empty.txt', data: '' }])), undefined);
    assert.is(await readFile(join(dir, 'out/a/l'), 'utf8'), 'hello');
    assert.is(await readFile(join(dir, 'out/empty.txt'), 'utf8'), '');
  }),
);

Read('should refuse a corrupt zip member by its CRC, and a tar header by its checksum', () =>
  inTemp(async (dir) => {
    const zip = makeZip([{ path: 'a.txt', data: 'hello' }]);
    // The reader trusts the central directory's CRC: corrupt that one.
    const central = Buffer.from(zip).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip[central + 16] = (zip[central + 16] as number) ^ 0xff;
    const bad = await extract(dir, 'zip', zip);
    assert.equal([bad?.code, bad?.data?.reason], [LocalErrorCode.Registry, 'archive']);

    const { gunzipSync, gzipSync } = await import('node:zlib');
    const tar = gunzipSync(makeTarGz([{ path: 'a.txt', data: 'hello' }]));
    tar[0] = 'b'.charCodeAt(0);
    const corrupt = await extract(dir, 'tar.gz', new Uint8Array(gzipSync(tar)), join(dir, 'out2'));
    assert.equal([corrupt?.code, corrupt?.data?.reason], [LocalErrorCode.Registry, 'archive']);
    const notGzip = await extract(dir, 'tar.gz', new TextEncoder().encode('not gzip at all'), join(dir, 'out3'));
    assert.equal([notGzip?.code, notGzip?.data?.reason], [LocalErrorCode.Registry, 'archive']);
  }),
);

const Extract = suite('registry :: extractArchive');

Extract('should extract files, directories and inside symlinks', () =>
  inTemp(async (dir) => {
    assert.is(await extract(dir, 'tar.gz', makeTarGz([{ path: 'p/' }, { path: 'p/a.txt', data: 'A' }, { path: 'p/link', link: 'a.txt' }, { path: './' }])), undefined);
    assert.is(await readFile(join(dir, 'out/p/link'), 'utf8'), 'A');
  }),
);

const hostile: [string, TestEntry[]][] = [
  ['a ".." path', [{ path: 'ok.txt', data: 'x' }, { path: '../evil.txt', data: 'x' }]],
  ['a nested ".." path', [{ path: 'p/../../evil.txt', data: 'x' }]],
  ['an absolute path', [{ path: '/tmp/evil.txt', data: 'x' }]],
  ['a drive path', [{ path: 'C:\\evil.txt', data: 'x' }]],
  ['a symlink to an absolute path', [{ path: 'p/link', link: '/etc/passwd' }]],
  ['a symlink climbing out', [{ path: 'p/link', link: '../../outside' }]],
  ['a symlink climbing through another link', [{ path: 'here', link: '.' }, { path: 'here2', link: 'here/..' }]],
  ['a dangling symlink', [{ path: 'p/link', link: 'nothing-here' }]],
  ['a file written through a link', [{ path: 'p/' }, { path: 'p/self', link: '.' }, { path: 'p/self/evil.txt', data: 'x' }]],
  ['a file written through a link climbing out', [{ path: 'p/' }, { path: 'p/self', link: '.' }, { path: 'p/self/../../evil.txt', data: 'x' }]],
];

for (const [name, entries] of hostile) {
  Extract(`should refuse ${name} and write nothing outside`, () =>
    inTemp(async (dir) => {
      for (const [format, bytes] of [['tar.gz', makeTarGz(entries)], ['zip', makeZip(entries)]] as const) {
        const target = join(dir, `target-${format}`);
        const error = await extract(dir, format, bytes, target);
        assert.is(error?.code, LocalErrorCode.Registry, `${format}: ${name}`);
        assert.is(error?.data?.reason, 'unsafe-entry', `${format}: ${name}`);
      }
      assert.equal((await readdir(dir)).sort(), ['archive.tar.gz', 'archive.zip', 'target-tar.gz', 'target-zip']);
    }),
  );
}

Extract('should refuse a NUL in a zip member name (tar cannot store one)', () =>
  inTemp(async (dir) => {
    const error = await extract(dir, 'zip', makeZip([{ path: 'ok.txt\0.sh', data: 'x' }]));
    assert.equal([error?.code, error?.data?.reason], [LocalErrorCode.Registry, 'unsafe-entry']);
  }),
);

Extract('should write nothing at all when the unsafe member comes last', () =>
  inTemp(async (dir) => {
    const entries = [...Array.from({ length: 20 }, (_, i) => ({ path: `p/f${i}.txt`, data: 'x' })), { path: '../evil.txt', data: 'x' }];
    for (const format of ['tar.gz', 'zip'] as const) {
      const root = join(dir, `out-${format}`);
      const error = await extract(dir, format, format === 'zip' ? makeZip(entries) : makeTarGz(entries), root);
      assert.is(error?.data?.reason, 'unsafe-entry');
      assert.equal(await readdir(root), [], format);
    }
  }),
);

Read.run();
Extract.run();
