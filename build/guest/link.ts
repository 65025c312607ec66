/**
 * Assembles a guest module at the byte level from the engine binary and a memory snapshot: the
 * engine's code as is, its data replaced by the snapshot's data segments (memory grown to the
 * snapshot's size), and one exported `() -> i32` function per JS export that calls
 * `mep_call_export(index)`. The engine's own ABI exports are removed so the guest exports only
 * `memory` and the user's functions. Nothing is parsed beyond the section headers and the few
 * vectors it edits, so linking takes milliseconds.
 */
import { toolFailure } from './diagnostics.ts';
import { memorySegments, type DataSegment } from './internal/data-segments.ts';
import {
  ByteReader, ByteWriter, ExternalKind, SectionId, appendToVector, customSectionName, dataSegments, readLimits, readSections, readVector, skipConstExpr,
  writeModule, type Section,
} from './internal/wasm-binary.ts';

/** Export names a guest may not use: they belong to the module itself. */
export const RESERVED_EXPORTS = new Set(['memory', '_start', '_initialize']);
/** The engine's ABI exports: used to build the guest, not exported by it. */
const ENGINE_EXPORTS = new Set(['mep_guest_init', 'mep_call_export', 'initialize-runtime', 'cabi_realloc', 'compile-src', 'invoke']);
/** Custom sections the guest does not carry (wasm-opt --strip-debug/--strip-producers drop them too). */
const DROPPED_CUSTOM = new Set(['name', 'producers']);
const WASM_PAGE = 65536;

/** What the snapshot needs to know about the engine binary. */
export interface EngineLayout {
  /**
   * Initial value of the stack pointer (the engine's only mutable global). The engine is linked
   * with `--stack-first`, so every byte below it is stack, dead whenever no call is running.
   */
  stackTop: number;
}

/** An initialized engine's linear memory, as the guest module must start with it. */
export interface MemoryImage {
  /** The whole memory (a multiple of 64 KiB); zero bytes cost nothing in the module. */
  memory: Uint8Array;
}

const linkError = (detail: string): Error => toolFailure('guest link', `${detail}; rebuild the engine with npm run build:engine`);

function section(sections: readonly Section[], id: number): Section {
  const s = sections.find((x) => x.id === id);
  if (!s) throw linkError(`the engine has no section ${id}`);
  return s;
}

/** Reads the stack layout of an engine binary. Throws `ERR_BUILD` if it is not the expected shape. */
export function engineLayout(engine: Uint8Array): EngineLayout {
  const sections = readSections(engine);
  const { count, reader } = readVector(section(sections, SectionId.Global).body);
  const mutable: { type: number; init: ByteReader }[] = [];
  for (let i = 0; i < count; i++) {
    const type = reader.byte();
    const isMutable = reader.byte() === 1;
    const init = new ByteReader(reader.bytes, reader.pos);
    skipConstExpr(reader);
    if (isMutable) mutable.push({ type, init });
  }
  const sp = mutable[0];
  if (mutable.length !== 1 || sp?.type !== 0x7f || sp.init.byte() !== 0x41) {
    throw linkError('the engine must have exactly one mutable global, an i32 stack pointer, for the snapshot to be complete');
  }
  const stackTop = Number(sp.init.s64());
  if (lowestDataOffset(sections) < stackTop) throw linkError('the engine has data below its stack pointer; link it with --stack-first');
  return { stackTop };
}

/** The lowest address an active data segment of memory 0 writes to (Infinity: none). */
function lowestDataOffset(sections: readonly Section[]): number {
  let lowest = Infinity;
  for (const segment of dataSegments(sections)) {
    if (segment.passive) continue;
    if (segment.offset === undefined) throw linkError('a data segment of the engine has a non-constant offset');
    lowest = Math.min(lowest, segment.offset);
  }
  return lowest;
}

/** How many functions `sections` import (their indices come before the module's own). */
export function countFunctionImports(sections: readonly Section[]): number {
  const imports = sections.find((s) => s.id === SectionId.Import);
  if (!imports) return 0;
  const { count, reader } = readVector(imports.body);
  let functions = 0;
  for (let i = 0; i < count; i++) {
    reader.name();
    reader.name();
    const kind = reader.byte();
    if (kind === ExternalKind.Function) {
      reader.u32();
      functions++;
    } else if (kind === ExternalKind.Table) {
      reader.byte();
      readLimits(reader);
    } else if (kind === ExternalKind.Memory) {
      readLimits(reader);
    } else if (kind === ExternalKind.Global) {
      reader.take(2);
    } else {
      throw linkError(`unknown import kind ${kind}`);
    }
  }
  return functions;
}

interface ExportEntry {
  name: string;
  kind: number;
  index: number;
}

function readExports(body: Uint8Array): ExportEntry[] {
  const { count, reader } = readVector(body);
  return Array.from({ length: count }, () => ({ name: reader.name(), kind: reader.byte(), index: reader.u32() }));
}

function exportSection(entries: readonly ExportEntry[]): Uint8Array {
  const w = new ByteWriter().u32(entries.length);
  for (const e of entries) w.name(e.name).byte(e.kind).u32(e.index);
  return w.toBytes();
}

function memorySection(body: Uint8Array, pages: number): Uint8Array {
  const { count, reader } = readVector(body);
  if (count !== 1) throw linkError(`the engine defines ${count} memories, expected 1`);
  const limits = readLimits(reader);
  if (limits.max !== undefined && limits.max < pages) throw linkError(`the snapshot needs ${pages} pages, above the engine's maximum ${limits.max}`);
  const w = new ByteWriter().u32(1).byte(limits.max === undefined ? 0 : 1).u32(Math.max(limits.min, pages));
  if (limits.max !== undefined) w.u32(limits.max);
  return w.toBytes();
}

function dataSection(segments: readonly DataSegment[]): Uint8Array {
  const w = new ByteWriter().u32(segments.length);
  // Active segment of memory 0: flags 0, offset `i32.const n; end`, bytes.
  for (const s of segments) w.byte(0).byte(0x41).s64(s.offset).byte(0x0b).u32(s.bytes.length).bytes(s.bytes);
  return w.toBytes();
}

/** The body of export wrapper `index`: `i32.const index; call mep_call_export; end`, no locals. */
function wrapperBody(index: number, callExport: number): Uint8Array {
  const code = new ByteWriter().u32(0).byte(0x41).s64(index).byte(0x10).u32(callExport).byte(0x0b).toBytes();
  return new ByteWriter().u32(code.length).bytes(code).toBytes();
}

/**
 * Returns the guest module: the engine with `image` as its initial memory and one export per JS
 * export. Throws `ERR_BUILD` for an export name the module reserves.
 *
 * @param exportNames the JS exports, in the order the blob lists them (wrapper i calls export i)
 */
export function linkGuest(engine: Uint8Array, image: MemoryImage, exportNames: readonly string[]): Uint8Array {
  const sections = readSections(engine);
  const exports = readExports(section(sections, SectionId.Export).body);
  const callExport = exports.find((e) => e.name === 'mep_call_export' && e.kind === ExternalKind.Function);
  if (!callExport) throw linkError('the engine does not export mep_call_export');
  const kept = exports.filter((e) => !ENGINE_EXPORTS.has(e.name));
  const taken = new Set(kept.map((e) => e.name));
  for (const name of exportNames) {
    if (RESERVED_EXPORTS.has(name) || taken.has(name)) throw toolFailure('guest link', `the entry exports '${name}', a name reserved by the module; rename that export`);
    taken.add(name);
  }

  const typeCount = readVector(section(sections, SectionId.Type).body).count;
  const functionCount = readVector(section(sections, SectionId.Function).body).count;
  const firstWrapper = countFunctionImports(sections) + functionCount;
  const wrappers = exportNames.map((name, i) => ({ name, kind: ExternalKind.Function, index: firstWrapper + i }));
  const segments = memorySegments(image.memory);
  const pages = Math.ceil(image.memory.length / WASM_PAGE);

  const out: Section[] = [];
  for (const s of sections) {
    switch (s.id) {
      case SectionId.Type: // one new type: () -> i32
        out.push({ id: s.id, body: appendToVector(s.body, [Uint8Array.of(0x60, 0x00, 0x01, 0x7f)]) });
        break;
      case SectionId.Function:
        out.push({ id: s.id, body: appendToVector(s.body, exportNames.map(() => new ByteWriter().u32(typeCount).toBytes())) });
        break;
      case SectionId.Memory:
        out.push({ id: s.id, body: memorySection(s.body, pages) });
        break;
      case SectionId.Export:
        out.push({ id: s.id, body: exportSection([...kept, ...wrappers]) });
        break;
      case SectionId.DataCount:
        out.push({ id: s.id, body: new ByteWriter().u32(segments.length).toBytes() });
        break;
      case SectionId.Code:
        out.push({ id: s.id, body: appendToVector(s.body, exportNames.map((_, i) => wrapperBody(i, callExport.index))) });
        break;
      case SectionId.Data:
        out.push({ id: s.id, body: dataSection(segments) });
        break;
      case SectionId.Custom:
        if (!DROPPED_CUSTOM.has(customSectionName(s))) out.push(s);
        break;
      default:
        out.push(s);
    }
  }
  if (!sections.some((s) => s.id === SectionId.Data)) throw linkError('the engine has no data section');
  return writeModule(out);
}
