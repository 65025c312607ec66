/**
 * Reads the shape of a wasm binary before the engine compiles it: how many types, imports,
 * functions, tables, memories, globals, exports and segments it declares, how big its custom
 * sections and function bodies are, how many locals and how deep a nesting of blocks each body
 * has. One pass over the bytes, stopping at the first count above its bound (WASM_MODULE_BOUNDS in
 * protocol/limits.ts), so what a hostile module makes the host spend before that refusal is linear
 * in its size. Compiling a function costs the engine about its locals and its operand stack's
 * height at each block and branch: the walk follows the height (calls and block types by their
 * signatures) and the bounds hold the sum.
 *
 * The instruction walk understands the features a compiled C guest uses (MVP, sign extension,
 * saturating conversions, bulk memory, reference types, multi-value, SIMD, typed function
 * references); anything else (e.g. the GC proposal) is refused, since its bodies could not be
 * measured. Three proposals V8 runs by default are refused by construction, wherever they appear
 * (module-shape-read.ts, RefusedFeature): threads (atomics), exception handling (tags and its
 * instructions) and tail calls.
 */
import { WASM_MODULE_BOUNDS, type WasmModuleBound } from '../../protocol/limits.ts';
import { checkImportTypes, importName, typeLetter } from './import-types.ts';
import { ModuleShapeError, Reader, immediates, miscImmediates, refuseOpcode, refusedFeature, simdImmediates, valueType } from './module-shape-read.ts';

export { ModuleShapeError, type RefusedFeature } from './module-shape-read.ts';

/**
 * The revision of what this walk accepts: bump it when a change here or in module-shape-read.ts
 * could accept a module an earlier walk refused, or refuse one it accepted (shape-verdict.test.ts
 * pins the sources' hash and says when). Verdicts kept under other rules are not trusted.
 */
const SHAPE_WALK_REVISION = 3;

/** FNV-1a (32 bits) of `text`, in hex: a short name for the bounds, not a safeguard. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * The rules a walk judged by: the walk's revision and the bounds. A verdict kept across
 * processes (compileExtensionModule's `shapeVerdicts`) counts only under the same rules.
 */
export const SHAPE_RULES = `walk ${SHAPE_WALK_REVISION}, bounds ${fnv1a(JSON.stringify(WASM_MODULE_BOUNDS))}`;

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
  /** The largest (locals + operand stack) × control points of one function: what compiling it costs, roughly. */
  functionCompileCost: number;
  /** The sum of (locals + operand stack) × control points over the module's functions. */
  moduleCompileCost: number;
  /** The largest initial size a table declares, in entries. */
  tableEntries: number;
  /** Entries of all element segments together. */
  elementEntries: number;
}

type Bounds = Readonly<Record<WasmModuleBound, number>>;

const SECTION_COUNTS: Partial<Record<number, keyof ModuleShape & WasmModuleBound>> = {
  1: 'types', 3: 'functions', 5: 'memories', 6: 'globals', 7: 'exports', 11: 'dataSegments',
};

/**
 * The shape of the wasm binary `bytes`; throws {@link ModuleShapeError} at the first figure
 * above `bounds` (default {@link WASM_MODULE_BOUNDS}), or when the bytes cannot be read.
 */
export function readModuleShape(bytes: Uint8Array, bounds: Bounds = WASM_MODULE_BOUNDS): ModuleShape {
  const shape: ModuleShape = {
    types: 0, imports: 0, functions: 0, tables: 0, memories: 0, globals: 0, exports: 0, elementSegments: 0, dataSegments: 0,
    customSectionBytes: 0, functionBodyBytes: 0, functionLocals: 0, blockDepth: 0, functionControl: 0, functionCompileCost: 0, moduleCompileCost: 0, tableEntries: 0, elementEntries: 0,
  };
  const check = (limit: WasmModuleBound, value: number, what: string): void => {
    if (value > bounds[limit]) throw new ModuleShapeError(`${what}: ${value}, above the bound of ${bounds[limit]}`, limit, value, bounds[limit]);
  };
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new ModuleShapeError('not a WebAssembly binary (bad magic number)');
  const r = new Reader(bytes, 8, bytes.length);
  const sigs: Signatures = { types: [], functions: [], imported: 0 };
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
    if (id === 13) throw refusedFeature('exception-handling', 'a tag section');
    const counted = SECTION_COUNTS[id];
    if (id === 1) readTypes(new Reader(bytes, s.pos, end), sigs);
    else if (id === 3) readFunctionTypes(new Reader(bytes, s.pos, end), sigs);
    if (counted !== undefined) {
      // Imported memories and globals were counted with the imports.
      shape[counted] += s.u32();
      check(counted, shape[counted], `${counted} declared`);
    } else if (id === 2) readImports(s, shape, check, sigs);
    else if (id === 4) readTables(s, shape, check);
    else if (id === 9) readElements(s, shape, check);
    else if (id === 10) readCode(s, shape, check, sigs);
  }
  checkImportTypes((sigs.imports ?? []).map(({ module, field, typeIndex }) => ({ module, field, type: sigs.types[typeIndex]?.letters })));
  return shape;
}

type Check = (limit: WasmModuleBound, value: number, what: string) => void;

/** How many values a function type takes and gives. */
interface Signature {
  params: number;
  results: number;
  /** `params>results` as letters (import-types.ts). */
  letters?: string;
}

/** The module's function types, and the type of each function (imported ones first). */
interface Signatures {
  types: Signature[];
  functions: number[];
  /** Imported functions (the first of `functions`). */
  imported: number;
  /** Where each imported function comes from. */
  imports?: { module: string; field: string; typeIndex: number }[];
}

function readTypes(s: Reader, sigs: Signatures): void {
  const count = s.u32();
  for (let i = 0; i < count; i++) {
    const form = s.byte();
    if (form !== 0x60) throw new ModuleShapeError(`a type of form 0x${form.toString(16)} (only function types are accepted)`);
    let letters = '';
    const params = s.u32();
    for (let p = 0; p < params; p++) letters += typeLetter(valueType(s));
    const results = s.u32();
    letters += '>';
    for (let p = 0; p < results; p++) letters += typeLetter(valueType(s));
    sigs.types.push({ params, results, letters });
  }
}

function readFunctionTypes(s: Reader, sigs: Signatures): void {
  const count = s.u32();
  for (let i = 0; i < count; i++) sigs.functions.push(s.u32());
}

function readImports(s: Reader, shape: ModuleShape, check: Check, sigs: Signatures): void {
  shape.imports = s.u32();
  check('imports', shape.imports, 'imports declared');
  for (let i = 0; i < shape.imports; i++) {
    const module = importName(s);
    const field = importName(s);
    const kind = s.byte();
    if (kind === 0x00) {
      const typeIndex = s.u32();
      sigs.functions.push(typeIndex);
      (sigs.imports ??= []).push({ module, field, typeIndex });
      sigs.imported++;
    }
    else if (kind === 0x01) tableType(s, shape, check);
    else if (kind === 0x02) {
      limits(s);
      shape.memories++;
    } else if (kind === 0x03) {
      valueType(s);
      s.byte();
      shape.globals++;
    } else if (kind === 0x04) throw refusedFeature('exception-handling', 'an imported tag');
    else throw new ModuleShapeError(`an import of unknown kind ${kind}`);
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

/** Counts the element segments and their entries, skipping each segment's contents. */
function readElements(s: Reader, shape: ModuleShape, check: Check): void {
  shape.elementSegments = s.u32();
  check('elementSegments', shape.elementSegments, 'element segments declared');
  for (let i = 0; i < shape.elementSegments; i++) {
    const flags = s.u32();
    if (flags > 7) throw new ModuleShapeError(`an element segment of unknown kind ${flags}`);
    if (flags === 2 || flags === 6) s.u32();
    if ((flags & 0x01) === 0) walkExpression(s);
    const expressions = (flags & 0x04) !== 0;
    if (flags !== 0 && flags !== 4) {
      if (expressions) valueType(s);
      else s.byte();
    }
    const entries = s.u32();
    shape.elementEntries += entries;
    check('elementEntries', shape.elementEntries, 'entries of element segments');
    for (let e = 0; e < entries; e++) {
      if (expressions) walkExpression(s);
      else s.u32();
    }
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

function readCode(s: Reader, shape: ModuleShape, check: Check, sigs: Signatures): void {
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
    const own = sigs.types[sigs.functions[sigs.imported + i] ?? -1] ?? { params: 0, results: 0 };
    const { depth, control, cost } = walkBody(body, (d) => check('blockDepth', d, `nesting of blocks in function ${i}`), { sigs, locals: locals + own.params, results: own.results, where: `function ${i}` });
    if (!body.done()) throw new ModuleShapeError(`function ${i} has bytes after its end`);
    check('functionControl', control, `control points (blocks, branches) in function ${i}`);
    // Compiling a function costs the engine its locals and operand stack at each block and branch.
    check('functionCompileCost', cost, `(locals + operand stack) × control points of function ${i} (${locals} locals, ${control} control points)`);
    shape.moduleCompileCost += cost;
    check('moduleCompileCost', shape.moduleCompileCost, '(locals + operand stack) × control points summed over the functions');
    shape.blockDepth = Math.max(shape.blockDepth, depth);
    shape.functionControl = Math.max(shape.functionControl, control);
    shape.functionCompileCost = Math.max(shape.functionCompileCost, cost);
  }
}

/** A constant expression (up to its `end`). */
function walkExpression(s: Reader): void {
  walkBody(s, () => undefined);
}

/** What {@link walkBody} needs to follow a function's operand stack. */
interface StackContext {
  sigs: Signatures;
  /** Locals the function has, its parameters included. */
  locals: number;
  /** Values the function returns. */
  results: number;
  /** The function, as an error names it. */
  where: string;
}

/** A block being walked: the stack height below it, and what it takes and gives. */
interface Frame {
  base: number;
  params: number;
  results: number;
}

/**
 * Net effect on the operand stack of the instructions {@link walkBody} does not follow one by
 * one, by opcode; an instruction not listed pops at least what it pushes (0 is its upper bound).
 */
function netEffect(op: number): number {
  if (op === 0x20 || op === 0x23 || (op >= 0x41 && op <= 0x44) || op === 0x3f || op === 0xd0 || op === 0xd2) return 1;
  if (op === 0x1a || op === 0x21 || op === 0x24 || op === 0x0d) return -1;
  if (op === 0x1b || op === 0x1c || op === 0x26 || (op >= 0x36 && op <= 0x3e)) return -2;
  if ((op >= 0x46 && op <= 0x4f) || (op >= 0x51 && op <= 0x66) || (op >= 0x6a && op <= 0x78) || (op >= 0x7c && op <= 0x8a) || (op >= 0x92 && op <= 0x98) || (op >= 0xa0 && op <= 0xa6)) return -1;
  return 0;
}

/**
 * Walks instructions up to the `end` closing the body; returns the deepest nesting, the number
 * of control points (blocks, `else`s, branch targets) and what compiling them costs: at each
 * control point, the function's locals plus the operand stack's height there (an upper bound:
 * exact for constants, variables, memory, numbers, calls and blocks; 0 for the rest, which pop
 * at least what they push). `deeper` sees each new depth (to refuse early).
 */
function walkBody(s: Reader, deeper: (depth: number) => void, stack?: StackContext): { depth: number; control: number; cost: number } {
  let depth = 0;
  let deepest = 0;
  let control = 0;
  let cost = 0;
  let height = 0;
  const frames: Frame[] = [{ base: 0, params: 0, results: stack?.results ?? 0 }];
  const frame = (): Frame => frames[frames.length - 1] as Frame;
  const at = (points: number): void => {
    control += points;
    cost += points * ((stack?.locals ?? 0) + 1 + height);
  };
  /** After unreachable, a branch or a return: the rest of the block is unreachable, its stack its base. */
  const unreachable = (): void => void (height = frame().base);
  const call = (type: number | undefined, extra: number): void => {
    const sig = stack?.sigs.types[type ?? -1] ?? { params: 0, results: 0 };
    height = Math.max(frame().base, height - sig.params - extra) + sig.results;
  };
  for (;;) {
    const op = s.byte();
    refuseOpcode(op, stack?.where ?? 'a constant expression');
    if (op === 0x02 || op === 0x03 || op === 0x04) {
      const type = blockType(s, stack?.sigs);
      if (op === 0x04) height = Math.max(frame().base, height - 1);
      at(1);
      frames.push({ base: Math.max(0, height - type.params), params: type.params, results: type.results });
      depth++;
      if (depth > deepest) {
        deepest = depth;
        deeper(depth);
      }
    } else if (op === 0x0b) {
      if (depth === 0) return { depth: deepest, control, cost };
      const closed = frames.pop() as Frame;
      height = closed.base + closed.results;
      depth--;
    } else if (op === 0x05) {
      // else: the block starts again from its base.
      at(1);
      height = frame().base + frame().params;
    } else if (op === 0x0e) {
      const targets = s.u32() + 1;
      for (let t = 0; t < targets; t++) s.u32();
      at(targets);
      unreachable();
    } else if (op === 0x10) {
      call(stack?.sigs.functions[s.u32()], 0);
    } else if (op === 0x11) {
      const type = s.u32();
      s.u32();
      call(type, 1);
    } else if (op === 0x14) {
      call(s.u32(), 1);
    } else {
      if (op === 0x0c || op === 0x0d || op === 0xd5 || op === 0xd6) at(1);
      if (op === 0xfc || op === 0xfd) {
        const sub = s.u32();
        if (op === 0xfc) miscImmediates(s, sub);
        else simdImmediates(s, sub);
        // table.size and v128.const push a value; every other of these pops at least what it pushes.
        if ((op === 0xfc && sub === 16) || (op === 0xfd && sub === 12)) height++;
        continue;
      }
      immediates(s, op);
      if (op === 0x00 || op === 0x0c || op === 0x0f) unreachable();
      else height = Math.max(frame().base, height + netEffect(op));
    }
  }
}

/** A block's type: what it takes from the stack and gives back. */
function blockType(s: Reader, sigs?: Signatures): Signature {
  const b = s.peek();
  if (b === 0x40) return (s.byte(), { params: 0, results: 0 });
  if (b >= 0x69 && b <= 0x7f && b !== 0x63 && b !== 0x64) return (s.byte(), { params: 0, results: 1 });
  if (b === 0x63 || b === 0x64) return (valueType(s), { params: 0, results: 1 });
  return sigs?.types[s.u32()] ?? { params: 0, results: 0 };
}
