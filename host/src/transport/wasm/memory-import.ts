/**
 * The host-local rewrite that lets the host recycle a guest's linear memory (memory-pool.ts): in
 * the bytes the host COMPILES (the artifact on disk, its sha256 and what another Extism host runs
 * stay as they are), the module's one defined memory becomes an import of the same limits, which
 * the engine fills with a memory from its thread's pool. Memory index 0 is unchanged (an imported
 * memory comes first in the index space and there was no other), so exports, data segments and
 * code need no edit. Only for a module with exactly one defined, non-shared memory, no imported
 * memory and an import section (every Extism guest imports the kernel); any other is capped as
 * {@link capSections} does and keeps its own memory.
 */
import { capSections, findSections, MEMORY_SECTION, readLimits, readU32, rewriteMemories, rewriteSections, rewriteTables, sharedMemoryAvailable, TABLE_SECTION, writeU32, type MemoryCapResult, type Rewritten } from './memory-cap.ts';

const IMPORT_SECTION = 2;

/** The namespace of the recycled memory's import. */
export const POOLED_MEMORY_MODULE = 'mep:memory';

/** The limits of a recycled memory: what the pool keys its memories by. */
export interface PooledMemoryType {
  /** Pages at instantiation (the module's declared minimum). */
  initial: number;
  /** The host's cap in pages. */
  maximum: number;
  shared: boolean;
}

/**
 * The import's name carries its limits (`<initial>:<maximum>:shared|unshared`): the engine reads
 * them from `WebAssembly.Module.imports` on any thread (a module posted to a worker is a new
 * object there, so nothing kept beside it on the compiling thread would follow it).
 */
export function pooledMemoryName(type: PooledMemoryType): string {
  return `${type.initial}:${type.maximum}:${type.shared ? 'shared' : 'unshared'}`;
}

/** The recycled memory `module` imports, if the host rewrote it so; undefined for any other module. */
export function pooledMemoryOf(module: WebAssembly.Module): PooledMemoryType | undefined {
  const imports = WebAssembly.Module.imports(module).filter((i) => i.kind === 'memory');
  const only = imports[0];
  if (imports.length !== 1 || only === undefined || only.module !== POOLED_MEMORY_MODULE) return undefined;
  const match = /^(\d+):(\d+):(shared|unshared)$/.exec(only.name);
  if (match === null) return undefined;
  return { initial: Number(match[1]), maximum: Number(match[2]), shared: match[3] === 'shared' };
}

/** What {@link capSectionsImportingMemory} did: {@link MemoryCapResult}, and the memory it made an import of. */
export interface ImportedMemoryResult extends MemoryCapResult {
  /** The imported memory's limits; undefined when the module keeps its own memory. */
  memory: PooledMemoryType | undefined;
}

/**
 * {@link capSections} (same caps, same errors, the same `headroom` rewrite in place), and when
 * the module qualifies (see the file's header) its memory turned into an import of
 * {@link POOLED_MEMORY_MODULE} with the capped limits, in the same single pass.
 */
export function capSectionsImportingMemory(bytes: Uint8Array, capPages: number, capEntries: number, share = sharedMemoryAvailable(), headroom?: number): ImportedMemoryResult {
  if (!qualifies(bytes)) return { ...capSections(bytes, capPages, capEntries, share, headroom), memory: undefined };
  let entry: number[] = [];
  let memory: PooledMemoryType | undefined;
  const toImport = (content: Uint8Array): Rewritten => {
    const capped = rewriteMemories(content, capPages, share);
    const flags = capped.content[1] as number;
    const { min, max } = readLimits(capped.content, 1, flags);
    memory = { initial: min.value, maximum: max as number, shared: (flags & 0x02) !== 0 };
    entry = [...name(POOLED_MEMORY_MODULE), ...name(pooledMemoryName(memory)), 0x02, ...capped.content.subarray(1)];
    // No memory defined any more: an empty memory section.
    return { content: Uint8Array.of(0), minPages: capped.minPages, changed: true };
  };
  const addImport = (content: Uint8Array): Rewritten => {
    const count = readU32(content, 0);
    const out = new Uint8Array([...writeU32(count.value + 1), ...content.subarray(count.next), ...entry]);
    return { content: out, minPages: 0, changed: true };
  };
  const result = rewriteSections(bytes, [[MEMORY_SECTION, toImport], [TABLE_SECTION, (content) => rewriteTables(content, capEntries)], [IMPORT_SECTION, addImport]], headroom);
  return { ...result, memory };
}

/** A name as the binary format writes it: its UTF-8 length, then its bytes. */
function name(text: string): number[] {
  const utf8 = new TextEncoder().encode(text);
  return [...writeU32(utf8.length), ...utf8];
}

/**
 * True for a module with an import section importing no memory, and a memory section of exactly
 * one memory, neither shared nor 64-bit. Anything it cannot follow is left to capSections (which
 * reports a malformed module itself).
 */
function qualifies(bytes: Uint8Array): boolean {
  try {
    const found = findSections(bytes, [IMPORT_SECTION, MEMORY_SECTION]);
    const imports = found.get(IMPORT_SECTION);
    const memories = found.get(MEMORY_SECTION);
    if (imports === undefined || memories === undefined) return false;
    const count = readU32(bytes, memories.start);
    const flags = bytes[count.next];
    if (count.value !== 1 || flags === undefined || (flags & ~0x01) !== 0) return false;
    return !importsMemory(bytes.subarray(imports.start, imports.end));
  } catch {
    return false;
  }
}

/** Whether an import section's entries import a memory (or are of a form this walk does not follow: then true, nothing is rewritten). */
function importsMemory(section: Uint8Array): boolean {
  const count = readU32(section, 0);
  let pos = count.next;
  const skipName = (): void => {
    const length = readU32(section, pos);
    pos = length.next + length.value;
  };
  for (let i = 0; i < count.value; i++) {
    skipName();
    skipName();
    const kind = section[pos++];
    if (kind === 0x00) pos = readU32(section, pos).next;
    else if (kind === 0x01) pos = readLimits(section, pos + 1, section[pos + 1] as number).next;
    else if (kind === 0x03 && isPlainValueType(section[pos])) pos += 2;
    else if (kind === 0x04) pos = readU32(section, pos + 1).next;
    else return true;
    if (pos > section.length) return true;
  }
  return pos !== section.length;
}

/** A global's value type of one byte (a number, vector or reference type without a heap type). */
function isPlainValueType(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x7b && byte <= 0x7f) || byte === 0x70 || byte === 0x6f);
}
