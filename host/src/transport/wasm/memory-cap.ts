/**
 * Lowers the declared maximum of a wasm module's memories to a page cap by rewriting its
 * memory section (binary format 1.0, section id 5), so the engine itself refuses growth past
 * the cap: `memory.grow` returns -1; and the same for its tables' entries (section 4):
 * `table.grow` returns -1 past the cap. Every other byte of the module is kept as is.
 */

/** What {@link capMemorySection} found and did. */
export interface MemoryCapResult {
  /** The module bytes with every defined memory's maximum at most the cap. */
  bytes: Uint8Array;
  /** The largest declared minimum among the module's defined memories, in pages (0 if none). */
  minPages: number;
  /** True when the memory section was rewritten. */
  changed: boolean;
}

/** Why a module cannot be capped. */
export class MemoryCapError extends Error {
  override readonly name = 'MemoryCapError';
  constructor(
    message: string,
    readonly reason: 'malformed' | 'min-above-cap' | 'memory64',
    readonly minPages = 0,
  ) {
    super(message);
  }
}

export const MEMORY_SECTION = 5;
export const TABLE_SECTION = 4;
/** The start section: a function the engine runs while instantiating, before any export is called. */
export const START_SECTION = 8;

/** True when the wasm binary `bytes` has a section `id` (the section headers are read, nothing else). */
export function hasSection(bytes: Uint8Array, id: number): boolean {
  let pos = 8;
  while (pos < bytes.length) {
    if (bytes[pos] === id) return true;
    const size = readU32(bytes, pos + 1);
    pos = size.next + size.value;
  }
  return false;
}

/**
 * Returns `bytes` with each defined memory's maximum set to `min(declared max, capPages)`, and
 * declared shared when `share` (default: where the platform has shared memory; see below).
 * Throws {@link MemoryCapError} when the module is not a wasm binary, uses 64-bit memories, or
 * declares a minimum above the cap. Imported memories are left alone (the host refuses them).
 */
export function capMemorySection(bytes: Uint8Array, capPages: number, share = sharedMemoryAvailable()): MemoryCapResult {
  return rewriteSection(bytes, MEMORY_SECTION, (content) => rewriteMemories(content, capPages, share));
}

let sharedMemory: boolean | undefined;

/**
 * Whether this platform creates shared wasm memories (not a browser page that is not
 * cross-origin isolated, say): only there is the guest's memory declared shared.
 */
export function sharedMemoryAvailable(): boolean {
  if (sharedMemory === undefined) {
    try {
      sharedMemory = typeof SharedArrayBuffer === 'function' && new WebAssembly.Memory({ initial: 0, maximum: 1, shared: true }).buffer instanceof SharedArrayBuffer;
    } catch {
      sharedMemory = false;
    }
  }
  return sharedMemory;
}

/**
 * Returns `bytes` with each defined table's maximum set to `min(declared max, capEntries)`, so
 * no table outgrows the cap. Throws {@link MemoryCapError} as {@link capMemorySection} does
 * (`minPages` then counts the table's initial entries). Imported tables are left alone (the
 * host refuses them).
 */
export function capTableSection(bytes: Uint8Array, capEntries: number): MemoryCapResult {
  return rewriteSection(bytes, TABLE_SECTION, (content) => rewriteTables(content, capEntries));
}

/**
 * {@link capMemorySection}, then {@link capTableSection} on its result, with one copy of the
 * module instead of two (a guest is 7.6 MB, most of it the snapshot's data): the same bytes, the
 * same `minPages` (the memory's), and the memory refused before the table. With `headroom` (the
 * caller gives up `bytes` and owns that many bytes before them in their buffer), no copy at all:
 * the sections up to the last one rewritten are written again in place, ending where it ended,
 * when they grow by at most `headroom` bytes (the rest, code and data, stays where it is).
 */
export function capSections(bytes: Uint8Array, capPages: number, capEntries: number, share = sharedMemoryAvailable(), headroom?: number): MemoryCapResult {
  const rewrites: [number, (content: Uint8Array) => Rewritten][] = [
    [MEMORY_SECTION, (content) => rewriteMemories(content, capPages, share)],
    [TABLE_SECTION, (content) => rewriteTables(content, capEntries)],
  ];
  return rewriteSections(bytes, rewrites, headroom);
}

/** A section's content rewritten by one of the rewrites {@link rewriteSections} applies. */
export interface Rewritten {
  content: Uint8Array;
  minPages: number;
  changed: boolean;
}

function rewriteSection(bytes: Uint8Array, sectionId: number, rewrite: (content: Uint8Array) => Rewritten): MemoryCapResult {
  return rewriteSections(bytes, [[sectionId, rewrite]]);
}

/** Where a section's content is: its header starts at `at`, its content spans `start`–`end`. */
export interface SectionAt {
  at: number;
  start: number;
  end: number;
}

/**
 * Finds the first section of each id in `ids` (walking the section headers until all are found),
 * checking the magic number and that each section walked fits the module.
 */
export function findSections(bytes: Uint8Array, ids: readonly number[]): Map<number, SectionAt> {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new MemoryCapError('not a WebAssembly binary (bad magic number)', 'malformed');
  }
  const found = new Map<number, SectionAt>();
  let pos = 8;
  while (pos < bytes.length && found.size < ids.length) {
    const id = bytes[pos] as number;
    const size = readU32(bytes, pos + 1);
    const end = size.next + size.value;
    if (end > bytes.length) throw new MemoryCapError('a section runs past the end of the module', 'malformed');
    if (ids.includes(id) && !found.has(id)) found.set(id, { at: pos, start: size.next, end });
    pos = end;
  }
  return found;
}

/**
 * Applies each rewrite (in the order given, so the first one's errors come first) to the first
 * section of its id, and builds the module again once, when one of them changed its section.
 * `minPages` is the first rewrite's.
 */
export function rewriteSections(bytes: Uint8Array, rewrites: readonly [number, (content: Uint8Array) => Rewritten][], headroom?: number): MemoryCapResult {
  const found = findSections(bytes, rewrites.map(([id]) => id));
  const replaced: { section: SectionAt; header: number[]; content: Uint8Array }[] = [];
  let minPages: number | undefined;
  for (const [id, rewrite] of rewrites) {
    const section = found.get(id);
    if (section === undefined) continue;
    const out = rewrite(bytes.subarray(section.start, section.end));
    minPages ??= out.minPages;
    if (out.changed) replaced.push({ section, header: [id, ...writeU32(out.content.length)], content: out.content });
  }
  if (replaced.length === 0) return { bytes, minPages: minPages ?? 0, changed: false };
  replaced.sort((a, b) => a.section.at - b.section.at);
  const length = replaced.reduce((n, r) => n + r.header.length + r.content.length - (r.section.end - r.section.at), bytes.length);
  const grow = length - bytes.length;
  const last = (replaced[replaced.length - 1] as (typeof replaced)[number]).section.end;
  // In place: the new prefix is built apart (a few KB), then written to end where the old one ended.
  const inPlace = headroom !== undefined && grow <= Math.min(headroom, bytes.byteOffset);
  const out = new Uint8Array(inPlace ? last + grow : length);
  let from = 0;
  let to = 0;
  for (const { section, header, content } of replaced) {
    out.set(bytes.subarray(from, section.at), to);
    to += section.at - from;
    out.set(header, to);
    out.set(content, to + header.length);
    to += header.length + content.length;
    from = section.end;
  }
  if (inPlace) {
    const whole = new Uint8Array(bytes.buffer, bytes.byteOffset - grow, length);
    whole.set(out);
    return { bytes: whole, minPages: minPages ?? 0, changed: true };
  }
  out.set(bytes.subarray(from), to);
  return { bytes: out, minPages: minPages ?? 0, changed: true };
}

export function rewriteTables(section: Uint8Array, capEntries: number): Rewritten {
  const count = readU32(section, 0);
  let pos = count.next;
  const out: number[] = [...writeU32(count.value)];
  let minEntries = 0;
  let changed = false;
  for (let i = 0; i < count.value; i++) {
    const refType = section[pos++];
    // Only the plain form: a funcref or externref table (an initializer expression is refused).
    if (refType !== 0x70 && refType !== 0x6f) throw new MemoryCapError(`a table of an unsupported form (0x${(refType ?? 0).toString(16)})`, 'malformed');
    const flags = section[pos];
    if (flags === undefined || (flags & ~0x01) !== 0) throw new MemoryCapError('a table with unsupported limits (64-bit or shared)', 'malformed');
    const { min, max, next } = readLimits(section, pos, flags);
    pos = next;
    minEntries = Math.max(minEntries, min.value);
    if (min.value > capEntries) throw new MemoryCapError(`declares a table of ${min.value} entries, above the cap of ${capEntries}`, 'min-above-cap', min.value);
    const newMax = max === undefined ? capEntries : Math.min(max, capEntries);
    if (newMax !== max) changed = true;
    out.push(refType, 0x01, ...writeU32(min.value), ...writeU32(newMax));
  }
  if (pos !== section.length) throw new MemoryCapError('unexpected bytes after the table entries', 'malformed');
  return { content: Uint8Array.from(out), minPages: minEntries, changed };
}

/** The limits that follow a table's or a memory's flags byte at `pos`: the minimum, the maximum when flag 0x01 says there is one. */
export function readLimits(section: Uint8Array, pos: number, flags: number): { min: { value: number; next: number }; max: number | undefined; next: number } {
  const min = readU32(section, pos + 1);
  if (!(flags & 0x01)) return { min, max: undefined, next: min.next };
  const max = readU32(section, min.next);
  return { min, max: max.value, next: max.next };
}

export function rewriteMemories(section: Uint8Array, capPages: number, share: boolean): Rewritten {
  const count = readU32(section, 0);
  let pos = count.next;
  const out: number[] = [...writeU32(count.value)];
  let minPages = 0;
  let changed = false;
  for (let i = 0; i < count.value; i++) {
    const flags = section[pos];
    if (flags === undefined) throw new MemoryCapError('truncated memory section', 'malformed');
    if (flags & 0x04) throw new MemoryCapError('64-bit memories are not supported', 'memory64');
    const { min, max, next } = readLimits(section, pos, flags);
    pos = next;
    minPages = Math.max(minPages, min.value);
    if (min.value > capPages) {
      throw new MemoryCapError(`declares ${min.value} initial pages, above the cap of ${capPages}`, 'min-above-cap', min.value);
    }
    const newMax = max === undefined ? capPages : Math.min(max, capPages);
    // Declared shared where the platform has shared memory: V8 (Node 20) then grows it in
    // place, where growing an unshared memory past 64 MiB collects garbage at almost every
    // memory.grow (a guest growing page by page to 256 MiB took seconds; shared, milliseconds).
    // The guest cannot tell: it has no threads, and the host copies what it takes out.
    const shared = share && (flags & 0x02) === 0 ? 0x02 : 0;
    if (newMax !== max || shared !== 0) changed = true;
    out.push(flags | 0x01 | shared, ...writeU32(min.value), ...writeU32(newMax));
  }
  if (pos !== section.length) throw new MemoryCapError('unexpected bytes after the memory entries', 'malformed');
  return { content: Uint8Array.from(out), minPages, changed };
}

/** Reads an unsigned LEB128 u32 at `pos`. */
export function readU32(bytes: Uint8Array, pos: number): { value: number; next: number } {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    const byte = bytes[pos++];
    if (byte === undefined) throw new MemoryCapError('truncated LEB128 number', 'malformed');
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) {
      if (value > 0xffff_ffff) break;
      return { value, next: pos };
    }
  }
  throw new MemoryCapError('LEB128 number too large for u32', 'malformed');
}

/** Encodes an unsigned LEB128 u32. */
export function writeU32(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}
