/**
 * Reads the shape of a wasm binary before the engine compiles it: how many types, imports,
 * functions, tables, memories, globals, exports, segments and tags it declares, how big its custom
 * sections and function bodies are, how many locals and how deep a nesting of blocks each body
 * has. One pass over the bytes, stopping at the first count above its bound (WASM_MODULE_BOUNDS in
 * protocol/limits.ts), so what a hostile module makes the host spend before that refusal is linear
 * in its size. Compiling a function costs the engine about its locals times its blocks: these are
 * what the bounds hold.
 *
 * The instruction walk understands the features a compiled C guest uses (MVP, sign extension,
 * saturating conversions, bulk memory, reference types, multi-value, SIMD, threads, tail calls,
 * exceptions, typed function references); anything else (e.g. the GC proposal) is refused, since
 * its bodies could not be measured.
 */
import { WASM_MODULE_BOUNDS, type WasmModuleBound } from '../../protocol/limits.ts';

/** A module over one of {@link WASM_MODULE_BOUNDS}, or one that cannot be read. */
export class ModuleShapeError extends Error {
  override readonly name = 'ModuleShapeError';
  constructor(
    message: string,
    /** The bound exceeded; undefined when the bytes are not a module this reader understands. */
    readonly limit?: WasmModuleBound,
    readonly value?: number,
    readonly bound?: number,
  ) {
    super(message);
  }
}

/** What {@link readModuleShape} measured: the counts, and each body's worst figure. */
export interface ModuleShape {
  types: number;
  imports: number;
  functions: number;
  tables: number;
  memories: number;
  globals: number;
  exports: number;
  elementSegments: number;
  dataSegments: number;
  tags: number;
  /** Bytes of custom sections, in all. */
  customSectionBytes: number;
  /** The largest function body, in bytes. */
  functionBodyBytes: number;
  /** The most locals one function declares (parameters not counted). */
  functionLocals: number;
  /** The deepest nesting of blocks in one function. */
  blockDepth: number;
  /** The most control points of one function: blocks (block, loop, if, try), `else`s and branch targets. */
  functionControl: number;
  /** The largest locals × control points of one function: what compiling it costs, roughly. */
  functionCompileCost: number;
  /** The sum of locals × control points over the module's functions. */
  moduleCompileCost: number;
  /** The largest initial size a table declares, in entries. */
  tableEntries: number;
}

type Bounds = Readonly<Record<WasmModuleBound, number>>;

const SECTION_COUNTS: Partial<Record<number, keyof ModuleShape & WasmModuleBound>> = {
  1: 'types', 3: 'functions', 5: 'memories', 6: 'globals', 7: 'exports', 9: 'elementSegments', 11: 'dataSegments', 13: 'tags',
};

/**
 * The shape of the wasm binary `bytes`; throws {@link ModuleShapeError} at the first figure
 * above `bounds` (default {@link WASM_MODULE_BOUNDS}), or when the bytes cannot be read.
 */
export function readModuleShape(bytes: Uint8Array, bounds: Bounds = WASM_MODULE_BOUNDS): ModuleShape {
  const shape: ModuleShape = {
    types: 0, imports: 0, functions: 0, tables: 0, memories: 0, globals: 0, exports: 0, elementSegments: 0, dataSegments: 0, tags: 0,
    customSectionBytes: 0, functionBodyBytes: 0, functionLocals: 0, blockDepth: 0, functionControl: 0, functionCompileCost: 0, moduleCompileCost: 0, tableEntries: 0,
  };
  const check = (limit: WasmModuleBound, value: number, what: string): void => {
    if (value > bounds[limit]) throw new ModuleShapeError(`${what}: ${value}, above the bound of ${bounds[limit]}`, limit, value, bounds[limit]);
  };
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new ModuleShapeError('not a WebAssembly binary (bad magic number)');
  const r = new Reader(bytes, 8, bytes.length);
  while (!r.done()) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > bytes.length) throw new ModuleShapeError('a section runs past the end of the module');
    const s = new Reader(bytes, r.pos, end);
    r.pos = end;
    if (id === 0) {
      shape.customSectionBytes += size;
      check('customSectionBytes', shape.customSectionBytes, 'bytes of custom sections');
      continue;
    }
    const counted = SECTION_COUNTS[id];
    if (counted !== undefined) {
      // Imported memories, globals and tags were counted with the imports.
      shape[counted] += s.u32();
      check(counted, shape[counted], `${counted} declared`);
    } else if (id === 2) readImports(s, shape, check);
    else if (id === 4) readTables(s, shape, check);
    else if (id === 10) readCode(s, shape, check);
  }
  return shape;
}

type Check = (limit: WasmModuleBound, value: number, what: string) => void;

function readImports(s: Reader, shape: ModuleShape, check: Check): void {
  shape.imports = s.u32();
  check('imports', shape.imports, 'imports declared');
  for (let i = 0; i < shape.imports; i++) {
    s.skip(s.u32());
    s.skip(s.u32());
    const kind = s.byte();
    if (kind === 0x00) s.u32();
    else if (kind === 0x01) tableType(s, shape, check);
    else if (kind === 0x02) {
      limits(s);
      shape.memories++;
    } else if (kind === 0x03) {
      valueType(s);
      s.byte();
      shape.globals++;
    } else if (kind === 0x04) {
      s.byte();
      s.u32();
      shape.tags++;
    } else throw new ModuleShapeError(`an import of unknown kind ${kind}`);
  }
}

function readTables(s: Reader, shape: ModuleShape, check: Check): void {
  const count = s.u32();
  check('tables', shape.tables + count, 'tables declared');
  for (let i = 0; i < count; i++) {
    if (s.peek() === 0x40) {
      // A table with an initializer expression (typed function references).
      s.byte();
      s.byte();
      tableType(s, shape, check);
      walkExpression(s);
    } else tableType(s, shape, check);
  }
}

function tableType(s: Reader, shape: ModuleShape, check: Check): void {
  valueType(s);
  const { min } = limits(s);
  shape.tables++;
  check('tables', shape.tables, 'tables declared');
  shape.tableEntries = Math.max(shape.tableEntries, min);
  check('tableEntries', min, 'initial entries of a table');
}

/** Limits of a memory or table; 64-bit ones are read as such. */
function limits(s: Reader): { min: number; max: number | undefined } {
  const flags = s.byte();
  if (flags & ~0x07) throw new ModuleShapeError(`limits with unknown flags ${flags}`);
  const wide = (flags & 0x04) !== 0;
  const min = wide ? s.u64() : s.u32();
  const max = flags & 0x01 ? (wide ? s.u64() : s.u32()) : undefined;
  return { min, max };
}

function readCode(s: Reader, shape: ModuleShape, check: Check): void {
  const count = s.u32();
  check('functions', count, 'function bodies');
  for (let i = 0; i < count; i++) {
    const size = s.u32();
    check('functionBodyBytes', size, `bytes of function body ${i}`);
    shape.functionBodyBytes = Math.max(shape.functionBodyBytes, size);
    const body = new Reader(s.bytes, s.pos, s.pos + size);
    s.skip(size);
    let locals = 0;
    const groups = body.u32();
    for (let g = 0; g < groups; g++) {
      locals += body.u32();
      check('functionLocals', locals, `locals of function ${i}`);
      valueType(body);
    }
    shape.functionLocals = Math.max(shape.functionLocals, locals);
    const { depth, control } = walkBody(body, (d) => check('blockDepth', d, `nesting of blocks in function ${i}`));
    if (!body.done()) throw new ModuleShapeError(`function ${i} has bytes after its end`);
    check('functionControl', control, `control points (blocks, branches) in function ${i}`);
    // Compiling a function costs the engine about its locals at each block and branch.
    const cost = (locals + 1) * control;
    check('functionCompileCost', cost, `locals × control points of function ${i} (${locals} locals, ${control} control points)`);
    shape.moduleCompileCost += cost;
    check('moduleCompileCost', shape.moduleCompileCost, 'locals × control points summed over the functions');
    shape.blockDepth = Math.max(shape.blockDepth, depth);
    shape.functionControl = Math.max(shape.functionControl, control);
    shape.functionCompileCost = Math.max(shape.functionCompileCost, cost);
  }
}

/** A constant expression (up to its `end`). */
function walkExpression(s: Reader): void {
  walkBody(s, () => undefined);
}

/**
 * Walks instructions up to the `end` closing the body; returns the deepest nesting and the
 * number of control points (blocks, `else`s, branch targets). `deeper` sees each new depth (to
 * refuse early).
 */
function walkBody(s: Reader, deeper: (depth: number) => void): { depth: number; control: number } {
  let depth = 0;
  let deepest = 0;
  let control = 0;
  for (;;) {
    const op = s.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06 || op === 0x1f) {
      blockType(s);
      if (op === 0x1f) {
        const catches = s.u32();
        for (let c = 0; c < catches; c++) {
          const kind = s.byte();
          if (kind < 2) s.u32();
          s.u32();
        }
        control += catches;
      }
      control++;
      depth++;
      if (depth > deepest) {
        deepest = depth;
        deeper(depth);
      }
    } else if (op === 0x0b) {
      if (depth === 0) return { depth: deepest, control };
      depth--;
    } else if (op === 0x18) {
      // delegate: ends a try.
      s.u32();
      depth--;
      if (depth < 0) throw new ModuleShapeError('delegate outside a try');
    } else if (op === 0x0e) {
      const targets = s.u32() + 1;
      for (let t = 0; t < targets; t++) s.u32();
      control += targets;
    } else {
      if (op === 0x05 || op === 0x0c || op === 0x0d || op === 0xd5 || op === 0xd6) control++;
      immediates(s, op);
    }
  }
}

/** Skips the immediates of every opcode but the structured ones. */
function immediates(s: Reader, op: number): void {
  if (op <= 0x01 || op === 0x05 || op === 0x0a || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b || op === 0xd1 || op === 0xd3 || op === 0xd4) return;
  if ((op >= 0x45 && op <= 0xc4)) return;
  if (op === 0x07 || op === 0x08 || op === 0x09 || op === 0x0c || op === 0x0d || op === 0x10 || op === 0x12 || op === 0x14 || op === 0x15) return void s.u32();
  if (op >= 0x20 && op <= 0x26) return void s.u32();
  if (op === 0xd2 || op === 0xd5 || op === 0xd6) return void s.u32();
  if (op === 0x11 || op === 0x13) return void (s.u32(), s.u32());
  if (op === 0x1c) {
    const n = s.u32();
    for (let i = 0; i < n; i++) valueType(s);
    return;
  }
  if (op >= 0x28 && op <= 0x3e) return memarg(s);
  if (op === 0x3f || op === 0x40) return void s.u32();
  if (op === 0x41) return void s.leb(5);
  if (op === 0x42) return void s.leb(10);
  if (op === 0x43) return s.skip(4);
  if (op === 0x44) return s.skip(8);
  if (op === 0xd0) return heapType(s);
  if (op === 0xfc) return miscImmediates(s, s.u32());
  if (op === 0xfd) return simdImmediates(s, s.u32());
  if (op === 0xfe) {
    const sub = s.u32();
    if (sub === 0x03) return void s.byte();
    if (sub > 0x4e) throw new ModuleShapeError(`an unknown atomic instruction 0xfe ${sub}`);
    return memarg(s);
  }
  throw new ModuleShapeError(`an instruction this host does not accept (opcode 0x${op.toString(16)})`);
}

function miscImmediates(s: Reader, sub: number): void {
  if (sub <= 7) return;
  if (sub === 8 || sub === 10 || sub === 12 || sub === 14) return void (s.u32(), s.u32());
  if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) return void s.u32();
  throw new ModuleShapeError(`an instruction this host does not accept (0xfc ${sub})`);
}

function simdImmediates(s: Reader, sub: number): void {
  if (sub <= 11 || sub === 92 || sub === 93) return memarg(s);
  if (sub === 12 || sub === 13) return s.skip(16);
  if (sub >= 21 && sub <= 34) return void s.byte();
  if (sub >= 84 && sub <= 91) return void (memarg(s), s.byte());
  if (sub <= 0x113) return;
  throw new ModuleShapeError(`an instruction this host does not accept (0xfd ${sub})`);
}

function memarg(s: Reader): void {
  const align = s.u32();
  if (align & 0x40) s.u32();
  s.leb(10);
}

function blockType(s: Reader): void {
  const b = s.peek();
  if (b === 0x40 || (b >= 0x69 && b <= 0x7f && b !== 0x63 && b !== 0x64)) return void s.byte();
  if (b === 0x63 || b === 0x64) return valueType(s);
  s.leb(5);
}

/** A value type: one byte, or a reference to a heap type. */
function valueType(s: Reader): void {
  const b = s.byte();
  if (b === 0x63 || b === 0x64) heapType(s);
  else if (b < 0x69 || b > 0x7f) throw new ModuleShapeError(`an unknown value type 0x${b.toString(16)}`);
}

function heapType(s: Reader): void {
  const b = s.peek();
  if (b >= 0x69 && b <= 0x74) return void s.byte();
  s.leb(5);
}

/** A cursor over `bytes[pos, end)`; every read is checked against `end`. */
class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}
  done(): boolean {
    return this.pos >= this.end;
  }
  peek(): number {
    if (this.pos >= this.end) throw new ModuleShapeError('truncated module');
    return this.bytes[this.pos] as number;
  }
  byte(): number {
    const b = this.peek();
    this.pos++;
    return b;
  }
  skip(n: number): void {
    if (this.pos + n > this.end) throw new ModuleShapeError('truncated module');
    this.pos += n;
  }
  /** An unsigned LEB128 of at most 32 bits. */
  u32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (value > 0xffff_ffff) break;
        return value;
      }
    }
    throw new ModuleShapeError('a number too large for 32 bits');
  }
  /** An unsigned LEB128 of up to 64 bits, as a (possibly inexact) number. */
  u64(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      const b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new ModuleShapeError('a number too large for 64 bits');
  }
  /** Skips a LEB128 of at most `maxBytes` bytes (signed or not). */
  leb(maxBytes: number): void {
    for (let i = 0; i < maxBytes; i++) if ((this.byte() & 0x80) === 0) return;
    throw new ModuleShapeError('a number too long');
  }
}
