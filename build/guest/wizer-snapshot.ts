/**
 * The snapshot taken by wizer (`snapshot: 'wizer'`) instead of in this process (snapshot.ts).
 * Wizer 10 rejects `memory.init`/`data.drop` and reference types, so the blob cannot be a passive
 * segment. It rides in a second memory instead: the wizer input is the engine plus
 *
 * - memory 1, holding `[u32 result][u32 pad][blob]` as one active data segment, so nothing the
 *   engine does in memory 0 (malloc included) can touch it;
 * - an exported `() -> ()` init function doing what snapshot.ts does from JS:
 *   `ptr = cabi_realloc(0, 0, 1, len)`, `memory.copy` of the blob from memory 1 to `ptr`, and
 *   `mep_guest_init(ptr, len)`, whose result (0 or a pointer to the error message) it stores at
 *   address 0 of memory 1, so that a top-level throw comes back as a message, not a trap.
 *
 * Memory 0 of wizer's output is then the same image snapshot.ts returns (the calls made on the
 * engine are the same), and goes through the same link and optimize steps; memory 1 and the init
 * function are dropped with the rest of wizer's module.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { toolFailure } from './diagnostics.ts';
import {
  ByteReader, ByteWriter, ExternalKind, SectionId, appendToVector, dataSegments, readLimits, readSections, readVector, skipConstExpr, writeModule,
  type Section,
} from './internal/wasm-binary.ts';
import { countFunctionImports } from './link.ts';
import type { EngineLayout } from './link.ts';
import type { SnapshotResult } from './snapshot.ts';

const run = promisify(execFile);
const WASM_PAGE = 65536;
/** Export name of the init function wizer runs. */
export const WIZER_INIT = 'mep_wizer_init';
/** Where the blob starts in memory 1 (the result word comes first). */
const BLOB_OFFSET = 8;

/** Path of the wizer binary of npm `@bytecodealliance/wizer` (its default export). */
export async function wizerPath(): Promise<string> {
  try {
    const pkg: string = '@bytecodealliance/wizer'; // untyped; its default export is the binary's path
    return ((await import(pkg)) as { default: string }).default;
  } catch (e) {
    throw toolFailure('guest snapshot (wizer)', 'wizer not found: run npm ci (it installs @bytecodealliance/wizer and its platform binary)', e);
  }
}

function section(sections: readonly Section[], id: number): Section {
  const s = sections.find((x) => x.id === id);
  if (!s) throw toolFailure('guest snapshot (wizer)', `the engine has no section ${id}`);
  return s;
}

function exportedFunction(sections: readonly Section[], name: string): number {
  const { count, reader } = readVector(section(sections, SectionId.Export).body);
  for (let i = 0; i < count; i++) {
    const n = reader.name();
    const kind = reader.byte();
    const index = reader.u32();
    if (n === name && kind === ExternalKind.Function) return index;
  }
  throw toolFailure('guest snapshot (wizer)', `the engine does not export ${name}; rebuild the engine with npm run build:engine`);
}

function functionImports(sections: readonly Section[]): number {
  const n = countFunctionImports(sections);
  const imports = sections.find((s) => s.id === SectionId.Import);
  // The second memory this snapshot adds is memory 1 only while the engine imports no memory.
  if (imports && readVector(imports.body).count !== n) throw toolFailure('guest snapshot (wizer)', 'the engine imports something other than functions');
  return n;
}

/** The init function's body: see the module comment. Locals: $ptr (0), $err (1). */
function initBody(blobLength: number, cabiRealloc: number, guestInit: number): Uint8Array {
  const c = new ByteWriter()
    .u32(1).u32(2).byte(0x7f) // two i32 locals
    .byte(0x41).s64(0).byte(0x41).s64(0).byte(0x41).s64(1).byte(0x41).s64(blobLength)
    .byte(0x10).u32(cabiRealloc).byte(0x21).u32(0) // local.set $ptr
    .byte(0x20).u32(0).byte(0x41).s64(BLOB_OFFSET).byte(0x41).s64(blobLength)
    .byte(0xfc).u32(10).u32(0).u32(1) // memory.copy dst=0 src=1
    .byte(0x20).u32(0).byte(0x41).s64(blobLength)
    .byte(0x10).u32(guestInit).byte(0x21).u32(1) // local.set $err
    .byte(0x41).s64(0).byte(0x20).u32(1)
    .byte(0x36).u32(0x40 | 2).u32(1).u32(0) // i32.store align=4 memory 1 offset 0
    .byte(0x0b)
    .toBytes();
  return new ByteWriter().u32(c.length).bytes(c).toBytes();
}

/**
 * The wizer input: `engine` with memory 1 holding the blob and the exported init function.
 * Exported for tests.
 */
export function wizerInput(engine: Uint8Array, blob: Uint8Array): Uint8Array {
  const sections = readSections(engine);
  const cabiRealloc = exportedFunction(sections, 'cabi_realloc');
  const guestInit = exportedFunction(sections, 'mep_guest_init');
  const typeCount = readVector(section(sections, SectionId.Type).body).count;
  const initIndex = functionImports(sections) + readVector(section(sections, SectionId.Function).body).count;
  const blobPages = Math.max(1, Math.ceil((BLOB_OFFSET + blob.length) / WASM_PAGE));
  // Active segment of memory 1 (flags 2, memory index 1) at offset BLOB_OFFSET.
  const segment = new ByteWriter().u32(2).u32(1).byte(0x41).s64(BLOB_OFFSET).byte(0x0b).u32(blob.length).bytes(blob).toBytes();
  const out: Section[] = [];
  for (const s of sections) {
    switch (s.id) {
      case SectionId.Type: // () -> ()
        out.push({ id: s.id, body: appendToVector(s.body, [Uint8Array.of(0x60, 0x00, 0x00)]) });
        break;
      case SectionId.Function:
        out.push({ id: s.id, body: appendToVector(s.body, [new ByteWriter().u32(typeCount).toBytes()]) });
        break;
      case SectionId.Memory:
        out.push({ id: s.id, body: appendToVector(s.body, [new ByteWriter().byte(0).u32(blobPages).toBytes()]) });
        break;
      case SectionId.Export:
        out.push({ id: s.id, body: appendToVector(s.body, [new ByteWriter().name(WIZER_INIT).byte(ExternalKind.Function).u32(initIndex).toBytes()]) });
        break;
      case SectionId.DataCount:
        out.push({ id: s.id, body: new ByteWriter().u32(new ByteReader(s.body).u32() + 1).toBytes() });
        break;
      case SectionId.Code:
        out.push({ id: s.id, body: appendToVector(s.body, [initBody(blob.length, cabiRealloc, guestInit)]) });
        break;
      case SectionId.Data:
        out.push({ id: s.id, body: appendToVector(s.body, [segment]) });
        break;
      default:
        out.push(s);
    }
  }
  if (!sections.some((s) => s.id === SectionId.Data)) throw toolFailure('guest snapshot (wizer)', 'the engine has no data section');
  return writeModule(out);
}

/** The memories of a module, rebuilt from its memory section and active data segments. */
function memoriesOf(wasm: Uint8Array): Uint8Array[] {
  const sections = readSections(wasm);
  const mem = readVector(section(sections, SectionId.Memory).body);
  const memories = Array.from({ length: mem.count }, () => new Uint8Array(readLimits(mem.reader).min * WASM_PAGE));
  for (const { passive, memory: index, offset, bytes } of dataSegments(sections)) {
    if (passive) throw toolFailure('guest snapshot (wizer)', 'wizer wrote a passive data segment');
    if (offset === undefined) throw toolFailure('guest snapshot (wizer)', 'wizer wrote a data segment with a non-constant offset');
    const target = memories[index];
    if (!target || offset + bytes.length > target.length) throw toolFailure('guest snapshot (wizer)', `wizer wrote a data segment outside memory ${index}`);
    target.set(bytes, offset);
  }
  return memories;
}

/** The initial value of the engine's stack pointer (its only mutable global) in `wasm`. */
function stackPointer(wasm: Uint8Array): number | undefined {
  const { count, reader } = readVector(section(readSections(wasm), SectionId.Global).body);
  for (let i = 0; i < count; i++) {
    reader.byte();
    const mutable = reader.byte() === 1;
    const init = new ByteReader(reader.bytes, reader.pos);
    skipConstExpr(reader);
    if (mutable) return init.byte() === 0x41 ? Number(init.s64()) : undefined;
  }
  return undefined;
}

/**
 * Wizer's error output on one line, without its Rust and wasm backtraces:
 * "Error: the `init` function trapped; wasm trap: wasm `unreachable` instruction executed".
 */
function wizerError(e: unknown): string {
  const text = (e as { stderr?: string }).stderr || String(e);
  return text
    .split(/\n\s*Stack backtrace:/)[0]!
    .split('\n')
    .map((l) => l.trim().replace(/^\d+:\s+/, ''))
    .filter((l) => l && l !== 'Caused by:' && !/^0x[0-9a-f]+ - /.test(l) && !/^error while executing at wasm backtrace:$/.test(l))
    .join('; ')
    .slice(0, 1000);
}

/** Outcome of {@link runWizer}: wizer's output module, or the message of a trapped init function. */
export type WizerResult = { ok: true; wasm: Uint8Array } | { ok: false; message: string };

/**
 * Runs wizer on `input` with init function `init` (no WASI, bulk memory on). A trap in the init
 * function comes back as `{ ok: false, message }` with wizer's own error text; any other failure
 * (missing binary, a module wizer refuses, a host import called while initializing) throws
 * `ERR_BUILD`.
 *
 * @param tmpRoot folder for wizer's input and output files (removed afterwards)
 */
export async function runWizer(input: Uint8Array, init: string, tmpRoot: string): Promise<WizerResult> {
  const bin = await wizerPath();
  const dir = mkdtempSync(join(tmpRoot, 'wizer-'));
  try {
    const inFile = join(dir, 'in.wasm');
    const outFile = join(dir, 'out.wasm');
    writeFileSync(inFile, input);
    try {
      await run(bin, ['--allow-wasi=false', '--wasm-bulk-memory', 'true', '-f', init, '-o', outFile, inFile], { maxBuffer: 16 << 20 });
    } catch (e) {
      if ((e as { code?: unknown }).code === 'ENOENT') throw toolFailure('guest snapshot (wizer)', `cannot run ${bin}`, e);
      const detail = wizerError(e);
      // An initializing guest must not reach the host (glue/engine.h): an engine bug, not user code.
      if (/unknown imported function/.test(detail)) throw toolFailure('guest snapshot (wizer)', detail, e);
      if (!/trapped/.test(detail)) throw toolFailure('guest snapshot (wizer) failed', detail, e);
      return { ok: false, message: `the module trapped while initializing: ${detail}` };
    }
    return { ok: true, wasm: readFileSync(outFile) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Initializes `engine` with `blob` under wizer and returns memory 0 of the snapshot, as
 * snapshot.ts `snapshotGuest` does in process. A JS exception or a trap during initialization
 * comes back as `{ ok: false, message }`; other wizer failures throw `ERR_BUILD` ({@link runWizer}).
 *
 * @param tmpRoot folder for wizer's input and output files (removed afterwards)
 */
export async function snapshotWithWizer(engine: Uint8Array, layout: EngineLayout, blob: Uint8Array, tmpRoot: string): Promise<SnapshotResult> {
  const result = await runWizer(wizerInput(engine, blob), WIZER_INIT, tmpRoot);
  if (!result.ok) return result;
  const [memory, results] = memoriesOf(result.wasm);
  if (!memory || !results) throw toolFailure('guest snapshot (wizer)', 'wizer wrote a module without its two memories');
  const sp = stackPointer(result.wasm);
  if (sp !== layout.stackTop) throw toolFailure('guest snapshot (wizer)', `the stack pointer is ${sp} after initialization, expected ${layout.stackTop}`);
  const err = new DataView(results.buffer, results.byteOffset).getUint32(0, true);
  if (err !== 0) {
    const end = memory.indexOf(0, err);
    return { ok: false, message: new TextDecoder().decode(memory.subarray(err, end < 0 ? err : end)) };
  }
  memory.fill(0, 0, layout.stackTop); // dead stack, as in snapshot.ts
  return { ok: true, image: { memory } };
}
