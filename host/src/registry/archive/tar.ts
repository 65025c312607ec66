/**
 * A small reader for gzip-compressed tar archives (ustar, pax and GNU long names), enough for
 * extension releases. Hard links, devices and FIFOs are refused rather than guessed at.
 */
import { gunzipSync } from 'node:zlib';
import type { ArchiveEntry } from './entry.ts';
import { archiveError } from './entry.ts';

const BLOCK = 512;
const decoder = new TextDecoder();

function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number, archive: string): number {
  // GNU base-256 encoding for large sizes: high bit of the first byte set.
  if ((block[offset] as number) & 0x80) {
    let value = 0;
    for (let i = 1; i < length; i++) value = value * 256 + (block[offset + i] as number);
    return value;
  }
  const text = field(block, offset, length).trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw archiveError(archive, `bad numeric field ${JSON.stringify(text)} in a tar header`);
  return parseInt(text, 8);
}

function isZeroBlock(block: Uint8Array): boolean {
  return block.every((b) => b === 0);
}

/** Parses pax extended-header records (`<len> key=value\n`). */
function paxRecords(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const text = decoder.decode(data);
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(' ', i);
    if (space < 0) break;
    const length = Number(text.slice(i, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = text.slice(space + 1, i + length - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += length;
  }
  return out;
}

/** Gunzips and reads every member of a `.tar.gz`/`.tgz`; `archive` names it in errors. */
export function readTarGz(bytes: Uint8Array, archive: string): ArchiveEntry[] {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(bytes);
  } catch (error) {
    throw archiveError(archive, `not gzip data (${(error as Error).message})`);
  }
  return readTar(tar, archive);
}

/** Reads every member of an uncompressed tar archive. */
export function readTar(tar: Uint8Array, archive: string): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (isZeroBlock(header)) break;
    const size = octal(header, 124, 12, archive);
    const type = String.fromCharCode(header[156] as number);
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw archiveError(archive, 'truncated tar member');
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    if (type === 'L') longName = field(data, 0, data.length);
    else if (type === 'K') longLink = field(data, 0, data.length);
    else if (type === 'x') pax = paxRecords(data);
    else if (type === 'g') continue; // global pax header: nothing here affects paths
    else {
      const magic = field(header, 257, 6);
      const prefix = magic.startsWith('ustar') ? field(header, 345, 155) : '';
      const stored = field(header, 0, 100);
      const path = pax.path ?? longName ?? (prefix ? `${prefix}/${stored}` : stored);
      const linkTarget = pax.linkpath ?? longLink ?? field(header, 157, 100);
      const mode = octal(header, 100, 8, archive);
      longName = longLink = undefined;
      pax = {};
      if (type === '0' || type === '\0' || type === '7') entries.push({ path, type: 'file', data: new Uint8Array(data), mode });
      else if (type === '5') entries.push({ path, type: 'directory', mode });
      else if (type === '2') entries.push({ path, type: 'symlink', linkTarget });
      else throw archiveError(archive, `member ${JSON.stringify(path)} has tar type '${type}' (hard link or special file), which extension packages may not contain`, { entry: path });
    }
  }
  return entries;
}
