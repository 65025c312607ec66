import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { isMissingFile, readRegularFile, readRegularFileSync, readRegularFileWithStat } from './regular-file.ts';
import { DEVICE, makeFifo, makeSocket, unlessHung } from './testing/special-files.ts';

const Read = suite('files :: readRegularFile');

const withDir = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('mep-files-', fn);

/** `[code, data.reason]` of what reading `path` rejects with, or the bytes' text. */
const outcome = (path: string, options: { maxBytes?: number; noFollow?: boolean } = {}): Promise<unknown> =>
  readRegularFile(path, { what: 'the test file', maxBytes: options.maxBytes ?? 1024, noFollow: options.noFollow ?? false }).then(
    (bytes) => bytes.toString('utf8'),
    (error: { code?: unknown; data?: { reason?: unknown } }) => [error.code, error.data?.reason],
  );

Read('should refuse a FIFO, a socket, a device and a directory before opening them, never blocking :: hostile', () =>
  withDir(async (dir) => {
    const fifo = join(dir, 'fifo');
    makeFifo(fifo);
    const server = await makeSocket(join(dir, 'sock'));
    try {
      assert.equal(await unlessHung(outcome(fifo), [fifo]), [LocalErrorCode.Usage, 'not-a-file']);
      assert.equal(await outcome(join(dir, 'sock')), [LocalErrorCode.Usage, 'not-a-file']);
      assert.equal(await outcome(DEVICE), [LocalErrorCode.Usage, 'not-a-file']);
      assert.equal(await outcome(dir), [LocalErrorCode.Usage, 'not-a-file']);
      // Through a link too: what the link names is what is checked.
      await symlink(fifo, join(dir, 'to-fifo'));
      assert.equal(await unlessHung(outcome(join(dir, 'to-fifo')), [fifo]), [LocalErrorCode.Usage, 'not-a-file']);
      assert.throws(() => readRegularFileSync(fifo, { what: 'x', maxBytes: 10 }), (e: { data?: { reason?: unknown } }) => e.data?.reason === 'not-a-file');
    } finally {
      server.close();
    }
  }),
);

Read('should read a regular file, follow a link unless told not to, and bound the size', () =>
  withDir(async (dir) => {
    const file = join(dir, 'a.json');
    await writeFile(file, '{"a": 1}');
    assert.is(await outcome(file), '{"a": 1}');
    await symlink(file, join(dir, 'link'));
    assert.is(await outcome(join(dir, 'link')), '{"a": 1}');
    assert.equal(await outcome(join(dir, 'link'), { noFollow: true }), [LocalErrorCode.Usage, 'not-a-file']);
    assert.equal(await outcome(file, { maxBytes: 7 }), [LocalErrorCode.Limit, 'too-large']);
    assert.is(await outcome(file, { maxBytes: 8 }), '{"a": 1}');
    const big = join(dir, 'big');
    await writeFile(big, Buffer.alloc(300_000, 120));
    assert.is(((await outcome(big, { maxBytes: 300_000 })) as string).length, 300_000, 'several chunks');
    assert.is(readRegularFileSync(big, { what: 'x', maxBytes: 300_000 }).length, 300_000);
    await mkdir(join(dir, 'd'));
    const missing = await readRegularFile(join(dir, 'd/none'), { what: 'x', maxBytes: 1 }).catch((e) => e);
    assert.ok(isMissingFile(missing));
  }),
);

Read('should leave the room asked for before the bytes, in memory shared with nothing', () =>
  withDir(async (dir) => {
    const path = join(dir, 'module.bin');
    await writeFile(path, 'a small file');
    const opened = await stat(path);
    for (const headroom of [0, 64]) {
      const read = await readRegularFileWithStat(path, { what: 'the test file', maxBytes: 1024, headroom });
      // The read with its stat says which file its bytes came from (the early read keys on it).
      assert.equal([read.info.ino, read.info.size, read.info.ctimeMs], [opened.ino, opened.size, opened.ctimeMs]);
      for (const bytes of [await readRegularFile(path, { what: 'the test file', maxBytes: 1024, headroom }), read.bytes, readRegularFileSync(path, { what: 'the test file', maxBytes: 1024, headroom })]) {
        assert.is(bytes.toString('utf8'), 'a small file');
        // A small read comes from Node's shared pool unless room was asked for: then its own memory.
        if (headroom > 0) assert.equal([bytes.byteOffset, bytes.buffer.byteLength >= headroom + bytes.length, bytes.buffer.byteLength < 8192], [headroom, true, true]);
      }
    }
  }),
);

Read('should hand each part to onPart in order as it reads, the parts read into one buffer with the room asked for', () =>
  withDir(async (dir) => {
    const path = join(dir, 'parts.bin');
    const written = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 7919) % 251));
    await writeFile(path, written);
    const parts: Buffer[] = [];
    const seen: string[] = [];
    const read = await readRegularFileWithStat(path, { what: 'the test file', maxBytes: 400_000, headroom: 64, partBytes: 65_536, onPart: (part) => void (parts.push(Buffer.from(part)), seen.push(String(part.length))) });
    assert.ok(read.bytes.equals(written));
    assert.ok(Buffer.concat(parts).equals(written), 'the parts, in order, are the bytes');
    assert.equal(seen, ['65536', '65536', '65536', '65536', '37857'], 'partBytes at a time');
    // Read in parts, still one buffer of its own: the room in front, no copy.
    assert.equal([read.bytes.byteOffset, read.bytes.buffer.byteLength], [64, 64 + 300_001 + 1]);
    // A file over the bound is refused, whatever was handed on before.
    assert.equal(await readRegularFile(path, { what: 'x', maxBytes: 200_000, partBytes: 65_536, onPart: () => undefined }).then(() => 'read', (e) => (e as { data?: { reason?: string } }).data?.reason), 'too-large');
  }),
);

Read.run();
