/**
 * Red team (issue 31): a tar archive of headers that are no member. Extension headers (pax `x`
 * and global `g` records, GNU long names `L`/`K`) were read and parsed but counted by nothing
 * but the byte budget, so 2.6 MB of gzip holding 1,000,000 empty global headers before a good
 * package installed after 9 s of CPU (load 27), past `--max-entries` 10,000 a thousandfold.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { installExtension } from '../install.ts';
import { registryPaths } from '../paths.ts';
import { backend, makeTarGz, packageEntries, tarTypedHeader, withProject, writePackage } from '../test-support.ts';
import { sealTarHeader } from './tar-write.ts';

const Flood = suite('registry :: tar headers that are no member');

Flood('should refuse a run of extension headers no member needs (pax, global, GNU long names), not parse them to the byte budget :: headers', () =>
  withProject(async (t) => {
    const good = gunzipSync(makeTarGz(await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.hdr', capabilities: backend('hdr') }), '')));
    for (const type of ['g', 'x', 'L']) {
      const tar = Buffer.concat([...Array<Buffer>(2_000).fill(tarTypedHeader(type, 0)), good]);
      await writeFile(join(t.root, 'flood.tgz'), gzipSync(tar));
      const error = await installExtension({ source: join(t.root, 'flood.tgz'), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, `${type}: ${error.message ?? 'installed'}`);
      assert.match(error.message, /extension headers in a row/, type);
      assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), `${type}: nothing installed`);
    }
    // A global header, then a pax header before a member, as real archivers write: installs.
    await writeFile(join(t.root, 'ok.tgz'), gzipSync(Buffer.concat([tarTypedHeader('g', 0), tarTypedHeader('x', 0), good])));
    assert.ok(await installExtension({ source: join(t.root, 'ok.tgz'), paths: registryPaths({ cwd: t.project }) }));
  }),
);

Flood('should refuse a pax size that differs from its header\'s, which tar reads and a header walk does not (two readers, two member lists) :: pax-size', () =>
  withProject(async (t) => {
    const good = gunzipSync(makeTarGz(await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.hdr', capabilities: backend('hdr') }), '')));
    // GNU tar takes the next 512 bytes as data of a member `pax` sizes at 512; a walk of the headers' sizes took them for a header.
    const record = Buffer.from('12 size=512\n');
    const tar = Buffer.concat([tarTypedHeader('x', record.length), record, Buffer.alloc(512 - record.length), tarTypedHeader('0', 0), tarTypedHeader('0', 0), good]);
    await writeFile(join(t.root, 'size.tgz'), gzipSync(tar));
    const error = await installExtension({ source: join(t.root, 'size.tgz'), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry, error.message ?? 'installed');
    assert.match(error.message, /pax size/);
  }),
);

/** `tar` with the header of the member named `name` rewritten as GNU tar's format, with `area` in what POSIX calls the prefix. */
function asGnuHeader(tar: Buffer, name: string, area: string): Buffer {
  const out = Buffer.from(tar);
  for (let at = 0; at + 512 <= out.length; ) {
    const header = out.subarray(at, at + 512);
    const size = parseInt(header.toString('latin1', 124, 135), 8) || 0;
    if (header.toString('utf8', 0, name.length + 1) === `${name}\0`) {
      header.write('ustar  \0', 257, 'latin1');
      header.fill(0, 345, 500);
      header.write(area, 345, 'latin1');
      sealTarHeader(header);
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

Flood('should refuse a GNU-format header with a name where POSIX puts the prefix, which GNU tar and libarchive ignore (two readers, two paths) :: gnu-prefix', () =>
  withProject(async (t) => {
    const good = gunzipSync(makeTarGz(await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.gnu', capabilities: backend('gnu') }), '')));
    // tar -tvf lists bin/ext.mjs; mep read the 155 bytes after the magic as a prefix: evil/bin/ext.mjs.
    await writeFile(join(t.root, 'gnu.tgz'), gzipSync(asGnuHeader(good, 'bin/ext.mjs', 'evil')));
    const error = await installExtension({ source: join(t.root, 'gnu.tgz'), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry, error.message ?? 'installed');
    assert.match(error.message, /GNU/);
    assert.is(error.data?.entry, 'bin/ext.mjs');
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), 'nothing installed');
    // GNU tar's incremental format keeps octal times there: read as GNU tar reads it, the name alone.
    await writeFile(join(t.root, 'times.tgz'), gzipSync(asGnuHeader(good, 'bin/ext.mjs', '14712345670\u000014712345670\u0000')));
    const installed = await installExtension({ source: join(t.root, 'times.tgz'), paths: registryPaths({ cwd: t.project }) });
    assert.is(installed.id, 'acme.gnu');
  }),
);

/** A pax header of `type` (`x` or `g`) holding `records` (`key=value`), then its padding. */
function paxHeader(type: string, records: string[]): Buffer {
  const body = Buffer.from(
    records
      .map((kv) => {
        const text = ` ${kv}\n`;
        let length = Buffer.byteLength(text) + 1;
        while (String(length).length + Buffer.byteLength(text) !== length) length = String(length).length + Buffer.byteLength(text);
        return `${length}${text}`;
      })
      .join(''),
  );
  return Buffer.concat([tarTypedHeader(type, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512)]);
}

Flood('should refuse pax records that rename a member or change its data for GNU tar and nothing for mep: global path and size, GNU.sparse.* (two readers, two member lists) :: pax-keys', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.pax', capabilities: backend('pax') });
    const good = gunzipSync(makeTarGz(await packageEntries(pkg, '')));
    // tar -tvf lists `bin/ext.mjs` for the member mep installs as `innocent.txt`: a reviewer reads one, mep installs the other.
    const innocent = gunzipSync(makeTarGz([{ path: 'innocent.txt', data: 'hello' }])).subarray(0, 1024);
    const cases: [string, Buffer][] = [
      ['GNU.sparse.name', Buffer.concat([paxHeader('x', ['GNU.sparse.name=bin/ext.mjs']), innocent, good])],
      ['GNU.sparse.major', Buffer.concat([paxHeader('x', ['GNU.sparse.major=1', 'GNU.sparse.minor=0', 'GNU.sparse.realsize=5']), innocent, good])],
      ['path', Buffer.concat([paxHeader('g', ['path=bin/ext.mjs']), innocent, good])],
      ['size', Buffer.concat([paxHeader('g', ['size=0']), good])],
      ['linkpath', Buffer.concat([paxHeader('g', ['linkpath=/etc/passwd']), good])],
    ];
    for (const [key, tar] of cases) {
      await writeFile(join(t.root, 'pax.tgz'), gzipSync(tar));
      const error = await installExtension({ source: join(t.root, 'pax.tgz'), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, `${key}: ${error.message ?? 'installed'}`);
      assert.match(error.message, key, key);
      assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), `${key}: nothing installed`);
    }
    // What git archive writes (a global comment with the commit) and times install as before.
    await writeFile(join(t.root, 'ok.tgz'), gzipSync(Buffer.concat([paxHeader('g', ['comment=0123456789abcdef0123456789abcdef01234567']), paxHeader('x', ['mtime=1700000000.5']), good])));
    assert.is((await installExtension({ source: join(t.root, 'ok.tgz'), paths: registryPaths({ cwd: t.project }) })).id, 'acme.pax');
  }),
);

Flood.run();
