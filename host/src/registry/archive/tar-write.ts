/**
 * A deterministic `.tar.gz` writer: the same members give the same bytes on every machine.
 * Members are written in the order given (callers sort them), with one fixed mtime, uid/gid 0,
 * no user or group names, modes 0o755/0o644, pax records for long or non-ASCII paths, and the
 * gzip header's operating-system byte set to "unknown" (zlib writes the build platform's).
 * Contents are streamed from disk; nothing larger than one chunk is held.
 */
import { openRegularFile } from '../../files/regular-file.ts';
import { open } from 'node:fs/promises';
import { createGzip } from 'node:zlib';
import type { Gzip } from 'node:zlib';

/** The mtime of every member: 1980-01-01, the earliest date every archive format can store. */
export const FIXED_MTIME = 315532800;

/** One member to write. */
export type TarMember =
  | { type: 'directory'; path: string }
  | { type: 'file'; path: string; executable: boolean; size: number; source: string }
  | { type: 'file'; path: string; executable: boolean; data: Uint8Array };

const BLOCK = 512;

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, '0')}\0`;
}

function header(path: string, type: '0' | '5' | 'x', mode: number, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(path, 0, 100, 'utf8');
  block.write(octal(mode, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(FIXED_MTIME, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\u000000', 257, 'binary');
  return sealTarHeader(block);
}

/** Writes the checksum of the tar header `block` (its checksum field taken as spaces); returns it. */
export function sealTarHeader(block: Buffer): Buffer {
  block.write('        ', 148, 'ascii');
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** `<length> path=<value>\n`, where the length counts itself. */
function paxPath(path: string): Buffer {
  const body = ` path=${path}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length = String(length).length + Buffer.byteLength(body);
  return Buffer.from(`${length}${body}`, 'utf8');
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/**
 * Writes to the gzip stream, waiting when it asks to (back-pressure), or until it is destroyed
 * (its file failed: a full disk, `ulimit -f`), then throwing that failure: a file that stops
 * taking bytes never drains.
 */
async function put(gzip: Gzip, chunk: Uint8Array): Promise<void> {
  const failed = () => gzip.errored ?? new Error('the archive stream closed before it was written');
  if (gzip.destroyed) throw failed();
  if (gzip.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const drained = () => {
      gzip.off('close', closed);
      resolve();
    };
    const closed = () => {
      gzip.off('drain', drained);
      reject(failed());
    };
    gzip.once('drain', drained);
    gzip.once('close', closed);
  });
}

async function writeMember(gzip: Gzip, member: TarMember): Promise<void> {
  const name = member.type === 'directory' ? `${member.path}/` : member.path;
  // ustar's name field holds 100 bytes of ASCII safely; anything else travels in a pax record.
  if (Buffer.byteLength(name) > 100 || /[^\x20-\x7e]/.test(name)) {
    const record = paxPath(name);
    await put(gzip, header('PaxHeader', 'x', 0o644, record.length));
    await put(gzip, record);
    await put(gzip, padding(record.length));
  }
  // Readers take the pax path; the header keeps a printable stand-in.
  const shortName = Buffer.byteLength(name) > 100 || /[^\x20-\x7e]/.test(name) ? name.replace(/[^\x20-\x7e]/g, '_').slice(0, 99) : name;
  if (member.type === 'directory') {
    await put(gzip, header(shortName, '5', 0o755, 0));
    return;
  }
  const mode = member.executable ? 0o755 : 0o644;
  const size = 'data' in member ? member.data.length : member.size;
  await put(gzip, header(shortName, '0', mode, size));
  if ('data' in member) await put(gzip, member.data);
  else {
    let written = 0;
    // The file as opened (a regular file, never a FIFO or a device put there since it was listed).
    const { handle } = await openRegularFile(member.source, { what: 'the package file', maxBytes: size });
    for await (const chunk of handle.createReadStream()) {
      written += (chunk as Buffer).length;
      if (written > size) throw new Error(`${member.source} grew while it was packed`);
      await put(gzip, chunk as Buffer);
    }
    if (written !== size) throw new Error(`${member.source} changed size while it was packed`);
  }
  await put(gzip, padding(size));
}

/**
 * Writes `members` as a gzip-compressed tar to `file`, created new (`wx`: never through a link or over a file already there).
 *
 * @example
 * await writeTarGz('out.tgz', [{ type: 'directory', path: 'pkg' }, { type: 'file', path: 'pkg/a', executable: false, data }]);
 */
export async function writeTarGz(file: string, members: readonly TarMember[]): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  const gzip = createGzip({ level: 9 });
  const output = handle.createWriteStream();
  const done = new Promise<void>((resolve, reject) => {
    output.on('finish', resolve);
    // A file that fails (EFBIG, ENOSPC) ends the gzip stream too, so a write waiting on it stops.
    output.on('error', (error) => {
      gzip.destroy(error);
      reject(error);
    });
    gzip.on('error', reject);
  });
  // Settled before it is awaited when the file fails mid-write: handled here (an unhandled
  // rejection ended mep at once, leaving the temporary archive), reported by the write or below.
  done.catch(() => undefined);
  gzip.pipe(output);
  try {
    for (const member of members) await writeMember(gzip, member);
    await put(gzip, Buffer.alloc(2 * BLOCK));
    gzip.end();
    await done;
  } catch (error) {
    // The first failure is reported; the streams' own settling after it is not awaited.
    done.catch(() => undefined);
    gzip.destroy();
    output.destroy();
    throw error;
  }
  const fix = await open(file, 'r+');
  try {
    // RFC 1952: OS 255 is "unknown"; the same input then gives the same bytes on any platform.
    await fix.write(Buffer.from([255]), 0, 1, 9);
  } finally {
    await fix.close();
  }
}
