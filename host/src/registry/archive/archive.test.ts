import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { makeTarGz, makeZip } from '../test-support.ts';
import { extractEntries } from './extract.ts';
import { readTarGz } from './tar.ts';
import { readZip } from './zip.ts';

const run = promisify(execFile);

async function inTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-archive-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const Read = suite('registry :: archive readers');

Read('should read a tar.gz written by the system tar (directories, files, modes)', () =>
  inTemp(async (dir) => {
    await mkdir(join(dir, 'pkg/bin'), { recursive: true });
    await writeFile(join(dir, 'pkg/extension.json'), '{"id":"x"}');
    await writeFile(join(dir, 'pkg/bin/run'), 'ünïcode', { mode: 0o755 });
    await run('tar', ['-czf', join(dir, 'p.tgz'), '-C', dir, 'pkg']);
    const entries = readTarGz(new Uint8Array(await readFile(join(dir, 'p.tgz'))), 'p.tgz');
    const file = entries.find((e) => e.path === 'pkg/bin/run');
    assert.is(new TextDecoder().decode(file?.data), 'ünïcode');
    assert.is((file?.mode ?? 0) & 0o111, 0o111);
    assert.ok(entries.some((e) => e.path.replace(/\/$/, '') === 'pkg' && e.type === 'directory'));
  }),
);

Read('should read a zip written by the system zip, and our own deflated one', () =>
  inTemp(async (dir) => {
    await mkdir(join(dir, 'pkg'));
    await writeFile(join(dir, 'pkg/extension.json'), '{"id":"x"}'.repeat(50));
    try {
      await run('zip', ['-qr', join(dir, 'p.zip'), 'pkg'], { cwd: dir });
      const entries = readZip(new Uint8Array(await readFile(join(dir, 'p.zip'))), 'p.zip');
      assert.is(new TextDecoder().decode(entries.find((e) => e.path === 'pkg/extension.json')?.data), '{"id":"x"}'.repeat(50));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // no zip binary: the next check still runs
    }
    const ours = readZip(makeZip([{ path: 'a/b.txt', data: 'hello' }, { path: 'a/l', link: 'b.txt' }]), 'ours.zip');
    assert.equal(ours.map((e) => [e.path, e.type]), [['a/b.txt', 'file'], ['a/l', 'symlink']]);
    assert.is(ours[1]?.linkTarget, 'b.txt');
  }),
);

Read('should refuse a corrupt zip member by its CRC', () => {
  const bytes = makeZip([{ path: 'a.txt', data: 'hello' }]);
  // The reader trusts the central directory's CRC: corrupt that one.
  const central = Buffer.from(bytes).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  bytes[central + 16] = (bytes[central + 16] as number) ^ 0xff;
  try {
    readZip(bytes, 'bad.zip');
    assert.unreachable();
  } catch (error) {
    assert.is((error as { code: string }).code, LocalErrorCode.Registry);
  }
});

const Extract = suite('registry :: extractEntries');

Extract('should extract files, directories and inside symlinks', () =>
  inTemp(async (dir) => {
    await extractEntries(readTarGz(makeTarGz([{ path: 'p/' }, { path: 'p/a.txt', data: 'A' }, { path: 'p/link', link: 'a.txt' }]), 't'), dir, 't');
    assert.is(await readFile(join(dir, 'p/link'), 'utf8'), 'A');
  }),
);

const hostile: [string, Parameters<typeof makeTarGz>[0]][] = [
  ['a ".." path', [{ path: 'ok.txt', data: 'x' }, { path: '../evil.txt', data: 'x' }]],
  ['a nested ".." path', [{ path: 'p/../../evil.txt', data: 'x' }]],
  ['an absolute path', [{ path: '/tmp/evil.txt', data: 'x' }]],
  ['a symlink to an absolute path', [{ path: 'p/link', link: '/etc/passwd' }]],
  ['a symlink climbing out', [{ path: 'p/link', link: '../../outside' }]],
  ['a symlink climbing through another link', [{ path: 'here', link: '.' }, { path: 'here/up', link: '..' }]],
  ['a file written through a link', [{ path: 'p/', data: '' }, { path: 'p/self', link: '.' }, { path: 'p/self/../../evil.txt', data: 'x' }]],
];

for (const [name, entries] of hostile) {
  Extract(`should refuse ${name} and write nothing outside`, () =>
    inTemp(async (dir) => {
      const target = join(dir, 'target');
      await mkdir(target);
      for (const [format, bytes] of [['tar', makeTarGz(entries)], ['zip', makeZip(entries)]] as const) {
        const parsed = format === 'tar' ? readTarGz(bytes, 'x') : readZip(bytes, 'x');
        const error = await extractEntries(parsed, target, `evil.${format}`).catch((e) => e);
        assert.is(error?.code, LocalErrorCode.Registry, `${format}: ${name}`);
        assert.is(error.data.reason, 'unsafe-entry');
      }
      assert.equal((await readdir(dir)).sort(), ['target']);
    }),
  );
}

Read.run();
Extract.run();
