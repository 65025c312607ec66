/**
 * Red team (issue 31): archive members whose names are one file on Windows or macOS but two
 * here. The planner keyed members by NFC and lower case only, where artifacts are keyed as the
 * file systems compare names (artifacts/path-set.ts): a member `extension.json.` (Windows drops
 * the trailing dot), `exten\u200bsion.json` (HFS+ ignores the zero-width space) or `STRASSE`
 * beside `straße` (full case folding) installed the one or the other depending on the machine.
 * A member named as a Windows device (`aux.js`, `con`) wrote to the device there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { crc32 } from './crc32.ts';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { installExtension } from '../install.ts';
import { registryPaths } from '../paths.ts';
import { backend, makeTarGz, makeZip, packageEntries, tarTypedHeader, withProject, writePackage } from '../test-support.ts';
import type { TestEntry } from '../test-support.ts';

const Names = suite('registry :: archive member names one file elsewhere');

Names('should refuse members that are one file on Windows or macOS, and device names, in tar and zip :: portable', () =>
  withProject(async (t) => {
    const base = await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.names', capabilities: backend('names') }), '');
    const manifest = base.find((e) => e.path === 'extension.json') as TestEntry;
    const cases: [string, TestEntry[], string][] = [
      ['a trailing dot (Windows drops it)', [...base, { ...manifest, path: 'extension.json.' }], 'duplicate-entry'],
      ['a trailing space (Windows drops it)', [...base, { ...manifest, path: 'extension.json ' }], 'duplicate-entry'],
      ['a zero-width space (HFS+ ignores it)', [...base, { ...manifest, path: 'exten\u200bsion.json' }], 'duplicate-entry'],
      ['full case folding (ß and SS)', [...base, { path: 'stra\u00dfe.txt', data: 'a' }, { path: 'STRASSE.txt', data: 'b' }], 'duplicate-entry'],
      ['a directory with a trailing dot', [...base, { path: 'data/a.txt', data: 'a' }, { path: 'data./a.txt', data: 'b' }], 'duplicate-entry'],
      ['a Windows device name', [...base, { path: 'aux.js', data: 'x' }], 'unsafe-entry'],
      ['a Windows device name as a folder', [...base, { path: 'lib/CON/x.js', data: 'x' }], 'unsafe-entry'],
    ];
    for (const [name, entries, reason] of cases) {
      for (const [format, bytes] of [['tgz', makeTarGz(entries)], ['zip', makeZip(entries)]] as const) {
        await writeFile(join(t.root, `names.${format}`), bytes);
        const error = await installExtension({ source: join(t.root, `names.${format}`), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
        assert.is(error.code, LocalErrorCode.Registry, `${format}: ${name}: ${error.message ?? 'installed'}`);
        assert.is(error.data?.reason, reason, `${format}: ${name}`);
        assert.match(error.message, /Refusing the archive/, `${format}: ${name}`);
      }
    }
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), 'nothing installed');
    // Names that are distinct everywhere still install: `con.d` is no device, `a.b.txt` no trailing dot.
    const fine = [...base, { path: 'console.txt', data: 'a' }, { path: 'a.b.txt', data: 'b' }];
    await writeFile(join(t.root, 'fine.tgz'), makeTarGz(fine));
    const ok = await installExtension({ source: join(t.root, 'fine.tgz'), paths: registryPaths({ cwd: t.project }) });
    assert.ok(ok, 'a package with portable names installs');
  }),
);

/** `tar` (uncompressed, its end blocks included) with a pax header giving the next member the path `path`. */
function withPaxPath(tar: Buffer, path: string): Buffer {
  const body = ` path=${path}\n`;
  // A pax record's length counts bytes.
  let length = Buffer.byteLength(body);
  while (Buffer.byteLength(`${length}${body}`) !== length) length = Buffer.byteLength(`${length}${body}`);
  const record = Buffer.from(`${length}${body}`);
  const data = Buffer.alloc(512, 0x41);
  return Buffer.concat([tar.subarray(0, tar.length - 1024), tarTypedHeader('x', record.length), record, Buffer.alloc((512 - (record.length % 512)) % 512), tarTypedHeader('0', 1), data, Buffer.alloc(1024)]);
}

Names('should refuse a member path no file system takes (past 1,024 characters, a segment past 255 bytes) with a typed error, not ENAMETOOLONG :: long', () =>
  withProject(async (t) => {
    const base = await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.long', capabilities: backend('long') }), '');
    const tar = gunzipSync(makeTarGz(base));
    for (const [name, path] of [['6,001 characters deep', `${'d/'.repeat(3000)}f`], ['a segment of 300 bytes', `lib/${'é'.repeat(150)}.js`]] as const) {
      for (const [format, bytes] of [['tgz', gzipSync(withPaxPath(tar, path))], ['zip', makeZip([...base, { path, data: 'x' }])]] as const) {
        await writeFile(join(t.root, `long.${format}`), bytes);
        const error = await installExtension({ source: join(t.root, `long.${format}`), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
        assert.is(error.code, LocalErrorCode.Registry, `${format}: ${name}: ${error.message ?? 'installed'}`);
        assert.is(error.data?.reason, 'unsafe-entry', `${format}: ${name}`);
      }
    }
    assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), 'nothing installed');
  }),
);

/** An Info-ZIP Unicode Path extra field (0x7075) naming `path` for the stored name `stored`. */
function unicodePath(stored: string, path: string): Uint8Array {
  const name = Buffer.from(path, 'utf8');
  const field = Buffer.alloc(9);
  field.writeUInt16LE(0x7075, 0);
  field.writeUInt16LE(5 + name.length, 2);
  field.writeUInt8(1, 4);
  field.writeUInt32LE(crc32(Buffer.from(stored, 'utf8'), 0), 5);
  return Buffer.concat([field, name]);
}

Names('should refuse zip member names other readers read otherwise: an Info-ZIP Unicode Path field, a name that is not UTF-8 by its flag (two readers, two member lists) :: zip-names', () =>
  withProject(async (t) => {
    const base = await packageEntries(await writePackage(join(t.root, 'pkg'), { id: 'acme.zipnames', capabilities: backend('names') }), '');
    const cases: [string, TestEntry[], RegExp][] = [
      // unzip -l lists bin/ext.mjs (its Unicode Path field); mep installed innocent.txt.
      ['a Unicode Path field naming another file', [...base, { path: 'innocent.txt', data: 'x', extra: unicodePath('innocent.txt', 'bin/other.mjs') }], /Unicode Path/],
      // No UTF-8 flag: unzip reads the bytes as CP437 (├⌐), mep as UTF-8 (é).
      ['a non-ASCII name without the UTF-8 flag', [...base, { path: 'caf\u00e9.txt', data: 'x', flags: 0 }], /UTF-8/],
    ];
    for (const [name, entries, message] of cases) {
      await writeFile(join(t.root, 'names.zip'), makeZip(entries));
      const error = await installExtension({ source: join(t.root, 'names.zip'), paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
      assert.is(error.code, LocalErrorCode.Registry, `${name}: ${error.message ?? 'installed'}`);
      assert.match(error.message, message, name);
      assert.not.ok(await stat(join(t.project, '.mep')).catch(() => undefined), `${name}: nothing installed`);
    }
    // A Unicode Path field that says the name again, and a flagged UTF-8 name, install.
    await writeFile(join(t.root, 'ok.zip'), makeZip([...base, { path: 'caf\u00e9.txt', data: 'x', extra: unicodePath('caf\u00e9.txt', 'caf\u00e9.txt') }]));
    assert.is((await installExtension({ source: join(t.root, 'ok.zip'), paths: registryPaths({ cwd: t.project }) })).id, 'acme.zipnames');
  }),
);

/** A stored zip member's local header and data, and its central record pointing at `offset`. */
function storedMember(path: string, text: string, offset: number): { local: Buffer; central: Buffer } {
  const name = Buffer.from(path);
  const data = Buffer.from(text);
  const crc = crc32(data, 0);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE((3 << 8) | 20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  central.writeUInt32LE(offset, 42);
  return { local: Buffer.concat([local, name, data]), central: Buffer.concat([central, name]) };
}

function endRecord(count: number, size: number, start: number, comment: Buffer = Buffer.alloc(0)): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(start, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([end, comment]);
}

Names('should refuse a zip with a second end record in its comment, which names another central directory (two readers, two member lists) :: zip-end', async () => {
  const { readZipDirectory } = await import('./zip.ts');
  const { createArchiveBudget, DEFAULT_ARCHIVE_LIMITS } = await import('./budget.ts');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'mep-zip-end-'));
  try {
    // The archive's own end record (with a comment) names a directory listing the benign file;
    // its comment is an end record naming another directory, listing the other: mep took that one.
    const benign = storedMember('bin/ext.mjs', 'benign\n', 0);
    const evil = storedMember('bin/ext.mjs', 'EVIL\n', benign.local.length);
    const evilStart = benign.local.length + evil.local.length;
    const benignStart = evilStart + evil.central.length;
    const hidden = endRecord(1, evil.central.length, evilStart);
    const zip = Buffer.concat([benign.local, evil.local, evil.central, benign.central, endRecord(1, benign.central.length, benignStart, hidden)]);
    const file = join(dir, 'two.zip');
    await writeFile(file, zip);
    const error = await readZipDirectory(file, zip.length, 'two.zip', createArchiveBudget(DEFAULT_ARCHIVE_LIMITS, 'two.zip')).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry, error.message ?? `read ${JSON.stringify(error)}`);
    assert.match(error.message, /end-of-central-directory records/);
    // One end record with a comment of its own is read as before.
    const plain = Buffer.concat([benign.local, benign.central, endRecord(1, benign.central.length, benign.local.length, Buffer.from('a comment'))]);
    await writeFile(file, plain);
    const members = await readZipDirectory(file, plain.length, 'plain.zip', createArchiveBudget(DEFAULT_ARCHIVE_LIMITS, 'plain.zip'));
    assert.equal(members.map((m) => m.path), ['bin/ext.mjs']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Names.run();
