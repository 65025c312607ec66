/**
 * A streaming reader for gzip-compressed tar archives (ustar, pax and GNU long names), enough
 * for extension releases. The archive is gunzipped as it is read and every byte counts against
 * the budget, so a bomb stops at the budget with memory bounded by one chunk. Hard links,
 * devices and FIFOs are refused rather than guessed at.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { ArchiveBudget } from './budget.ts';
import { createByteReader } from './byte-reader.ts';
import type { ByteReader } from './byte-reader.ts';
import type { ArchiveEntry, DataSink } from './entry.ts';
import { archiveError, drainInto } from './entry.ts';

const BLOCK = 512;
/**
 * Extension headers (pax `x`/`g`, GNU `L`/`K`) read in a row before a member: an archiver writes
 * at most a global header and one of each kind before a member; more parse as headers nothing
 * counts but the byte budget (1,000,000 in 2.6 MB of gzip took 9 s of CPU).
 */
const MAX_EXTENSION_RUN = 8;

/** Longest pax or GNU long-name record kept in memory. */
const MAX_EXTENSION_HEADER = 1 << 20;
const decoder = new TextDecoder();

/** Called per member in archive order; returns where a file's data goes, or undefined to skip it. */
export type TarVisitor = (entry: ArchiveEntry) => Promise<DataSink | undefined>;

function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function octal(block: Uint8Array, offset: number, length: number, archive: string): number {
  // GNU base-256 encoding for large sizes: high bit of the first byte set.
  if ((block[offset] as number) & 0x80) {
    let value = (block[offset] as number) & 0x7f;
    for (let i = 1; i < length; i++) value = value * 256 + (block[offset + i] as number);
    if (!Number.isSafeInteger(value)) throw archiveError(archive, 'a tar size field is too large');
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

/** The header checksum: unsigned per POSIX, signed as some old tars wrote it. */
function checksumMatches(header: Uint8Array, archive: string): boolean {
  const stored = octal(header, 148, 8, archive);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : (header[i] as number);
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return stored === unsigned || stored === signed;
}

/** Parses pax extended-header records (`<len> key=value\n`); `<len>` counts bytes, not characters. */
function paxRecords(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space < 0) break;
    const length = Number(decoder.decode(data.subarray(i, space)));
    if (!Number.isInteger(length) || length <= 0 || i + length > data.length) break;
    const record = decoder.decode(data.subarray(space + 1, i + length - 1));
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += length;
  }
  return out;
}

/** GNU tar's magic and version (`ustar  \0`): its format has no prefix field. */
const GNU_MAGIC = 'ustar  \0';

/**
 * The POSIX prefix of a member's name: bytes 345-500 of a ustar header. GNU tar's own format
 * keeps its access and change times there (octal digits), and GNU tar and libarchive never read
 * it as a name, where Python's tarfile does: a GNU header with a name there was `evil/bin/x.js`
 * to mep and `bin/x.js` to `tar -tvf`, two readers and two member lists. So a GNU header's area
 * holds only what GNU tar writes, and is never a prefix.
 */
function ustarPrefix(header: Uint8Array, stored: string, archive: string): string {
  const magic = decoder.decode(header.subarray(257, 265));
  if (magic === GNU_MAGIC) {
    const area = header.subarray(345, 500);
    if (area.every((b) => b === 0 || b === 0x20 || (b >= 0x30 && b <= 0x37))) return '';
    throw archiveError(archive, `member ${JSON.stringify(stored)} has a GNU tar header with a name where POSIX tar keeps a prefix (GNU tar and libarchive read ${JSON.stringify(stored)}, other readers a longer path): tar and mep could install different paths; ask the publisher for an archive written by a standard tar`, { entry: stored });
  }
  return magic.startsWith('ustar') ? field(header, 345, 155) : '';
}

/** Pax keys GNU tar reads as the name, the link or the size of every member after a global header. */
const MEMBER_KEYS = ['path', 'linkpath', 'size'];

/**
 * `records` of a pax header (`x`, or global `g`), refused when GNU tar would read a member
 * differently from mep: a global header's `path`, `linkpath` or `size` applies to every member
 * after it for GNU tar (and Python's `tarfile`), where mep reads none from a global header, and a
 * `GNU.sparse.*` record makes GNU tar take a member's name from `GNU.sparse.name` and its data
 * for a sparse map (`innocent.txt` to mep was `bin/ext.mjs` to `tar -tvf`): two readers, two
 * member lists. Sparse files have no place in a package (type `S` is refused too).
 */
function checkedPax(records: Record<string, string>, type: 'x' | 'g', archive: string): Record<string, string> {
  for (const key of Object.keys(records)) {
    const renames = key.startsWith('GNU.sparse.') || (type === 'g' && MEMBER_KEYS.includes(key));
    if (!renames) continue;
    throw archiveError(
      archive,
      `a pax ${type === 'g' ? 'global ' : ''}header holds ${JSON.stringify(key.slice(0, 64))}, which GNU tar reads as a member's ${key.startsWith('GNU.sparse.') ? 'sparse name and map' : key} and mep does not: tar and mep would list different members; ask the publisher for an archive written by a standard tar without sparse files`,
      { key: key.slice(0, 64) },
    );
  }
  return records;
}

async function skip(reader: ByteReader, n: number): Promise<void> {
  if (n > 0) for await (const _ of reader.pieces(n));
}

/** The data of an extension header (long name, pax), bounded; then its padding. */
async function extensionData(reader: ByteReader, size: number, archive: string): Promise<Uint8Array> {
  if (size > MAX_EXTENSION_HEADER) throw archiveError(archive, `a tar extension header of ${size} bytes (at most ${MAX_EXTENSION_HEADER})`);
  const data = size === 0 ? new Uint8Array(0) : await reader.take(size);
  if (data === undefined) throw archiveError(archive, 'truncated tar member');
  await skip(reader, padding(size));
  return data;
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

async function walk(reader: ByteReader, archive: string, budget: ArchiveBudget, visit: TarVisitor): Promise<void> {
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax: Record<string, string> = {};
  let extensionRun = 0;
  for (;;) {
    const header = await reader.take(BLOCK);
    // The end: two zero blocks by the standard; one, or none at all, is accepted too.
    if (header === undefined || isZeroBlock(header)) return;
    if (!checksumMatches(header, archive)) throw archiveError(archive, 'a tar header fails its checksum (corrupt, or not a tar archive)');
    const size = octal(header, 124, 12, archive);
    const type = String.fromCharCode(header[156] as number);
    const extension = type === 'L' || type === 'K' || type === 'x' || type === 'g';
    extensionRun = extension ? extensionRun + 1 : 0;
    if (extensionRun > MAX_EXTENSION_RUN) {
      throw archiveError(archive, `more than ${MAX_EXTENSION_RUN} tar extension headers in a row (pax, global or GNU long-name records that no member needs); ask the publisher for an archive written by a standard tar`);
    }
    if (type === 'L') longName = field(await extensionData(reader, size, archive), 0, size);
    else if (type === 'K') longLink = field(await extensionData(reader, size, archive), 0, size);
    else if (type === 'x') pax = checkedPax(paxRecords(await extensionData(reader, size, archive)), 'x', archive);
    else if (type === 'g') checkedPax(paxRecords(await extensionData(reader, size, archive)), 'g', archive); // kept by no member: see checkedPax
    else {
      const stored = field(header, 0, 100);
      const prefix = ustarPrefix(header, stored, archive);
      const path = pax.path ?? longName ?? (prefix ? `${prefix}/${stored}` : stored);
      const linkTarget = pax.linkpath ?? longLink ?? field(header, 157, 100);
      const mode = octal(header, 100, 8, archive);
      // tar reads a member's data by its pax size: a walk by the header's size would read other members than tar lists.
      if (pax.size !== undefined && pax.size !== String(size)) {
        throw archiveError(archive, `member ${JSON.stringify(path)} has a pax size of ${JSON.stringify(pax.size.slice(0, 24))} bytes and a header size of ${size}: tar and mep would read different members`, { entry: path });
      }
      longName = longLink = undefined;
      pax = {};
      budget.entry();
      let entry: ArchiveEntry;
      if (type === '0' || type === '\0' || type === '7') entry = { path, type: 'file', size, mode };
      else if (type === '5') entry = { path, type: 'directory', size: 0, mode };
      else if (type === '2') entry = { path, type: 'symlink', size: 0, linkTarget };
      else throw archiveError(archive, `member ${JSON.stringify(path)} has tar type '${type}' (hard link or special file), which extension packages may not contain`, { entry: path });
      const sink = await visit(entry);
      if (size === 0) await sink?.close();
      else await drainInto(reader.pieces(size), sink);
      await skip(reader, padding(size));
    }
  }
}

/**
 * Streams the `.tar.gz`/`.tgz` at `file`, calling `visit` per member in order; stops at the end
 * of the tar stream or at the first failure (a typed error; `archive` names it), and counts
 * every unpacked byte and every member against `budget`.
 *
 * @example
 * await walkTarGz(file, url, createArchiveBudget(limits, url), async (entry) => undefined);
 */
export async function walkTarGz(file: string, archive: string, budget: ArchiveBudget, visit: TarVisitor): Promise<void> {
  const input = createReadStream(file);
  // 64 KiB pieces: a quarter of the hops of the default 16 KiB, still a bounded buffer.
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  let streamError: Error | undefined;
  // Read errors and gzip errors surface through the iterator; keep the first for the message.
  input.on('error', (error) => gunzip.destroy((streamError ??= error)));
  gunzip.on('error', (error) => (streamError ??= error));
  input.pipe(gunzip);
  const reader = createByteReader(gunzip[Symbol.asyncIterator](), (n) => budget.bytes(n), () => archiveError(archive, 'truncated tar member'));
  try {
    await walk(reader, archive, budget, visit);
  } catch (error) {
    if (streamError !== undefined && error === streamError) throw archiveError(archive, `not gzip data, or corrupt (${streamError.message})`);
    throw error;
  } finally {
    // Stop reading at once: the rest (a bomb's zeros) is never decompressed.
    input.destroy();
    gunzip.destroy();
  }
}
