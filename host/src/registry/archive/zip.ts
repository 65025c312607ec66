/**
 * A small streaming zip reader: the central directory is the index (local headers only locate
 * the data), members are stored (0) or deflated (8). The directory is read and checked first
 * (member count and the sum of declared sizes against the budget, overlapping members refused),
 * then each member is inflated as a stream that fails the moment it passes its declared size
 * and is checked against its CRC-32. Zip64 and encryption are refused. Unix symlinks (mode
 * 0o120000 in the external attributes) become symlink entries.
 */
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import { isMepError } from '../../protocol/errors.ts';
import type { ArchiveBudget } from './budget.ts';
import { crc32 } from './crc32.ts';
import type { ArchiveEntry } from './entry.ts';
import { archiveError } from './entry.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Largest central directory read into memory (about 6 KB per member at the default budget). */
const MAX_CENTRAL_DIRECTORY = 64 << 20;
/** Longest symlink target. */
const MAX_LINK = 4096;
const decoder = new TextDecoder();

/** A zip member and where its data is. */
export interface ZipMember extends ArchiveEntry {
  method: number;
  crc: number;
  compressedSize: number;
  localOffset: number;
  dataStart: number;
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/**
 * The end record: 22 bytes plus a comment of at most 65535 bytes, at the very end. A record
 * whose comment holds another record that also ends the file is two archives in one: readers
 * that scan back from the end took the one in the comment (mep did), others the outer one or
 * neither, each with its own central directory and members; refused.
 */
function findEndOfCentralDirectory(tail: Buffer, archive: string): number {
  const ends: number[] = [];
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) === tail.length) ends.push(i);
  }
  if (ends.length > 1) throw archiveError(archive, `${ends.length} end-of-central-directory records end the file (one in the comment of another), each naming its own central directory: zip readers would list different members`);
  if (ends.length === 1) return ends[0] as number;
  // A record whose comment does not reach the end: bytes after the archive, where readers differ again.
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD) continue;
    const after = tail.length - i - 22 - tail.readUInt16LE(i + 20);
    throw archiveError(archive, after < 0 ? 'its end-of-central-directory comment is cut short (truncated)' : `its end-of-central-directory record is followed by ${after} bytes its comment does not account for (bytes after the archive, read differently by zip readers)`);
  }
  throw archiveError(archive, 'no zip end-of-central-directory record (not a zip file, or truncated)');
}

/** Refuses members whose bytes overlap (one local header and data shared by several names). */
function checkNoOverlap(members: readonly ZipMember[], directoryStart: number, archive: string): void {
  const sorted = [...members].sort((a, b) => a.localOffset - b.localOffset);
  for (let i = 0; i < sorted.length; i++) {
    const member = sorted[i] as ZipMember;
    const end = member.dataStart + member.compressedSize;
    const next = i + 1 < sorted.length ? (sorted[i + 1] as ZipMember).localOffset : directoryStart;
    if (end > next) throw archiveError(archive, `member ${JSON.stringify(member.path)} overlaps the next member or the central directory (a zip bomb's trick)`, { entry: member.path });
  }
}

/** Bit 11 of the general purpose flags: the name and comment are UTF-8. */
const UTF8_NAMES = 0x800;
/** The Info-ZIP Unicode Path extra field: a UTF-8 name that `unzip` shows and extracts instead of the stored one. */
const UNICODE_PATH = 0x7075;

/**
 * Refuses a member name that other readers read otherwise (two readers, two member lists): an
 * Info-ZIP Unicode Path field naming another path (`unzip -l` listed `bin/ext.mjs` for the
 * member mep installed as `innocent.txt`), or a name with bytes past ASCII and without the UTF-8
 * flag (`unzip` reads such names as CP437: mep's `café.txt` was its `caf├⌐.txt`).
 */
function checkNameReading(name: Uint8Array, path: string, flags: number, extra: Uint8Array, archive: string): void {
  const fail = (why: string) => archiveError(archive, `member ${JSON.stringify(path)} ${why}: zip readers would list different members; ask the publisher for an archive written with UTF-8 names`, { entry: path });
  if (!(flags & UTF8_NAMES) && name.some((b) => b > 0x7f)) throw fail('has a name past ASCII without the UTF-8 flag (unzip reads it as CP437)');
  const view = Buffer.from(extra.buffer, extra.byteOffset, extra.length);
  for (let at = 0; at + 4 <= view.length; ) {
    const id = view.readUInt16LE(at);
    const size = view.readUInt16LE(at + 2);
    if (id === UNICODE_PATH) {
      const field = view.subarray(at + 4, at + 4 + size);
      const named = field.length > 5 ? decoder.decode(field.subarray(5)) : '';
      if (named !== path) throw fail(`has an Info-ZIP Unicode Path field naming ${JSON.stringify(named.slice(0, 200))} (what unzip lists and extracts)`);
    }
    at += 4 + size;
  }
}

/**
 * Reads and checks the central directory of the zip at `file` (`size` bytes): every member's
 * path, type and location, counted against `budget` (entries, and declared sizes as bytes)
 * before any member is inflated. Symlink targets are read here, bounded.
 */
export async function readZipDirectory(file: string, size: number, archive: string, budget: ArchiveBudget): Promise<ZipMember[]> {
  if (size < 22) throw archiveError(archive, 'too short to be a zip file');
  const handle = await open(file, 'r');
  try {
    const tailStart = Math.max(0, size - 22 - 0xffff);
    const tail = await readAt(handle, tailStart, size - tailStart);
    const eocd = findEndOfCentralDirectory(tail, archive);
    const count = tail.readUInt16LE(eocd + 10);
    const directorySize = tail.readUInt32LE(eocd + 12);
    const directoryStart = tail.readUInt32LE(eocd + 16);
    if (count === 0xffff || directoryStart === 0xffffffff) throw archiveError(archive, 'zip64 archives are not supported');
    if (directorySize > MAX_CENTRAL_DIRECTORY || directoryStart + directorySize > size) throw archiveError(archive, `a central directory of ${directorySize} bytes at ${directoryStart} does not fit`);
    for (let i = 0; i < count; i++) budget.entry();
    const directory = await readAt(handle, directoryStart, directorySize);
    const members: ZipMember[] = [];
    let offset = 0;
    for (let i = 0; i < count; i++) {
      if (offset + 46 > directory.length || directory.readUInt32LE(offset) !== CENTRAL) throw archiveError(archive, 'corrupt zip central directory');
      const flags = directory.readUInt16LE(offset + 8);
      const method = directory.readUInt16LE(offset + 10);
      const crc = directory.readUInt32LE(offset + 16);
      const compressedSize = directory.readUInt32LE(offset + 20);
      const declaredSize = directory.readUInt32LE(offset + 24);
      const nameLength = directory.readUInt16LE(offset + 28);
      const next = offset + 46 + nameLength + directory.readUInt16LE(offset + 30) + directory.readUInt16LE(offset + 32);
      const madeBy = directory.readUInt16LE(offset + 4) >> 8;
      const external = directory.readUInt32LE(offset + 38);
      const localOffset = directory.readUInt32LE(offset + 42);
      const nameBytes = directory.subarray(offset + 46, offset + 46 + nameLength);
      const path = decoder.decode(nameBytes);
      checkNameReading(nameBytes, path, flags, directory.subarray(offset + 46 + nameLength, offset + 46 + nameLength + directory.readUInt16LE(offset + 30)), archive);
      offset = next;

      if (flags & 1) throw archiveError(archive, `member ${JSON.stringify(path)} is encrypted`, { entry: path });
      if (method !== 0 && method !== 8) throw archiveError(archive, `member ${JSON.stringify(path)} uses compression method ${method}; only stored and deflate are supported`, { entry: path });
      const local = await readAt(handle, localOffset, 30);
      if (local.length < 30 || local.readUInt32LE(0) !== LOCAL) throw archiveError(archive, `bad local header for ${JSON.stringify(path)}`, { entry: path });
      const dataStart = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      if (dataStart + compressedSize > size) throw archiveError(archive, `member ${JSON.stringify(path)} is truncated`, { entry: path });
      // Unix "made by" (3) keeps st_mode in the high 16 bits of the external attributes.
      const unixMode = madeBy === 3 ? external >>> 16 : 0;
      const located = { method, crc, compressedSize, localOffset, dataStart };
      if (path.endsWith('/') || (unixMode & 0o170000) === 0o040000) {
        members.push({ path, type: 'directory', size: 0, ...(unixMode & 0o777 ? { mode: unixMode & 0o777 } : {}), ...located });
      } else if ((unixMode & 0o170000) === 0o120000) {
        if (declaredSize > MAX_LINK) throw archiveError(archive, `symlink ${JSON.stringify(path)} has a ${declaredSize}-byte target`, { entry: path });
        const member: ZipMember = { path, type: 'symlink', size: declaredSize, ...located };
        const chunks: Uint8Array[] = [];
        for await (const chunk of zipMemberData(file, member, archive)) chunks.push(chunk);
        members.push({ ...member, size: 0, linkTarget: decoder.decode(Buffer.concat(chunks)) });
      } else {
        budget.bytes(declaredSize);
        members.push({ path, type: 'file', size: declaredSize, ...(unixMode & 0o777 ? { mode: unixMode & 0o777 } : {}), ...located });
      }
    }
    checkNoOverlap(members, directoryStart, archive);
    return members;
  } finally {
    await handle.close();
  }
}

/**
 * The data of `member`, inflated as it streams: fails as soon as it passes the declared size,
 * and at the end when the size or the CRC-32 differs.
 */
export async function* zipMemberData(file: string, member: ZipMember, archive: string): AsyncGenerator<Uint8Array> {
  const fail = (why: string) => archiveError(archive, `member ${JSON.stringify(member.path)} ${why}`, { entry: member.path });
  if (member.compressedSize === 0) {
    if (member.size !== 0 || member.crc !== 0) throw fail('is truncated');
    return;
  }
  const raw = createReadStream(file, { start: member.dataStart, end: member.dataStart + member.compressedSize - 1 });
  const inflate = member.method === 8 ? createInflateRaw() : undefined;
  // Each side's failure stops the other; the iterator below reports it. (With a listener on
  // both, a failure after iteration stopped cannot become an uncaught 'error' event.)
  raw.on('error', (error) => inflate?.destroy(error));
  inflate?.on('error', () => raw.destroy());
  const source = inflate ? raw.pipe(inflate) : raw;
  let produced = 0;
  let crc = 0;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      produced += chunk.length;
      if (produced > member.size) throw fail(`inflates to more than its declared ${member.size} bytes`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
  } catch (error) {
    if (isMepError(error)) throw error;
    throw fail(`does not inflate (${(error as Error).message})`);
  } finally {
    raw.destroy();
    inflate?.destroy();
  }
  if (produced !== member.size) throw fail(`inflates to ${produced} bytes, not the declared ${member.size}`);
  if (crc !== member.crc) throw fail('fails its CRC-32 check');
}
