/**
 * A small zip reader: the central directory is the index (local headers only locate the data),
 * members are stored (0) or deflated (8) and checked against their CRC-32. Zip64 and encryption
 * are refused. Unix symlinks (mode 0o120000 in the external attributes) become symlink entries.
 */
import { inflateRawSync } from 'node:zlib';
import { crc32 } from './crc32.ts';
import type { ArchiveEntry } from './entry.ts';
import { archiveError } from './entry.ts';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const decoder = new TextDecoder();

function findEndOfCentralDirectory(view: DataView, archive: string): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const last = view.byteLength - 22;
  for (let i = last; i >= Math.max(0, last - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) return i;
  }
  throw archiveError(archive, 'no zip end-of-central-directory record (not a zip file, or truncated)');
}

/** Reads every member of a `.zip`; `archive` names it in errors. */
export function readZip(bytes: Uint8Array, archive: string): ArchiveEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 22) throw archiveError(archive, 'too short to be a zip file');
  const eocd = findEndOfCentralDirectory(view, archive);
  const count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw archiveError(archive, 'zip64 archives are not supported');
  const entries: ArchiveEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== CENTRAL) throw archiveError(archive, 'corrupt zip central directory');
    const flags = view.getUint16(offset + 8, true);
    const method = view.getUint16(offset + 10, true);
    const crc = view.getUint32(offset + 16, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const external = view.getUint32(offset + 38, true);
    const localOffset = view.getUint32(offset + 42, true);
    const path = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;

    if (flags & 1) throw archiveError(archive, `member ${JSON.stringify(path)} is encrypted`, { entry: path });
    if (localOffset + 30 > bytes.length || view.getUint32(localOffset, true) !== LOCAL) throw archiveError(archive, `bad local header for ${JSON.stringify(path)}`, { entry: path });
    const dataStart = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
    if (dataStart + compressedSize > bytes.length) throw archiveError(archive, `member ${JSON.stringify(path)} is truncated`, { entry: path });
    const raw = bytes.subarray(dataStart, dataStart + compressedSize);
    // Unix "made by" (3) keeps st_mode in the high 16 bits of the external attributes.
    const unixMode = madeBy === 3 ? external >>> 16 : 0;
    const isDir = path.endsWith('/') || (unixMode & 0o170000) === 0o040000;
    if (isDir) {
      entries.push({ path, type: 'directory', mode: unixMode & 0o777 || undefined });
      continue;
    }
    let data: Uint8Array;
    if (method === 0) data = new Uint8Array(raw);
    else if (method === 8) {
      try {
        data = new Uint8Array(inflateRawSync(raw));
      } catch (error) {
        throw archiveError(archive, `member ${JSON.stringify(path)} does not inflate (${(error as Error).message})`, { entry: path });
      }
    } else throw archiveError(archive, `member ${JSON.stringify(path)} uses compression method ${method}; only stored and deflate are supported`, { entry: path });
    if (crc32(data) !== crc) throw archiveError(archive, `member ${JSON.stringify(path)} fails its CRC-32 check`, { entry: path });
    if ((unixMode & 0o170000) === 0o120000) entries.push({ path, type: 'symlink', linkTarget: decoder.decode(data) });
    else entries.push({ path, type: 'file', data, mode: unixMode & 0o777 || undefined });
  }
  return entries;
}
