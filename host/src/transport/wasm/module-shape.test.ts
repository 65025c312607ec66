import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { WASM_MODULE_BOUNDS } from '../../protocol/limits.ts';
import { compileBombModule, elementSegmentsModule, instructionModule, stackBombModule, tablesModule, uleb } from '../../../../fixtures/wasm/hostile-modules.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { rejection } from '../../../../fixtures/wasm/test-client.ts';
import { compileExtensionModule } from './module.ts';
import { ModuleShapeError, readModuleShape } from './module-shape.ts';

/** Asserts `error` is ERR_LIMIT naming `limit` in its data. */
function assertLimit(error: unknown, limit: string): void {
  assert.ok(isMepError(error), String(error));
  assert.is(error.code, LocalErrorCode.Limit);
  assert.is((error.data as { limit?: string }).limit, limit);
  assert.match(error.message, /before it is compiled/);
}

const shape = suite('module shape');

shape('should measure a guest fixture within every bound', () => {
  const measured = readModuleShape(loadWatFixture('echo'));
  assert.is(measured.memories, 1);
  assert.ok(measured.functions >= 1);
  assert.ok(measured.moduleCompileCost > 0);
});

shape('should count locals, nesting and control points of a function', () => {
  const measured = readModuleShape(compileBombModule(100, 50));
  assert.is(measured.functionLocals, 100);
  assert.is(measured.blockDepth, 50);
  assert.is(measured.functionControl, 50);
  assert.is(measured.functionCompileCost, 101 * 50);
});

shape('should refuse a function of 20,000 locals and 5,000 nested blocks before compiling it :: ERR_LIMIT', async () => {
  // V8 accepts it (under its 50,000 locals) and spends seconds and gigabytes at its first call.
  const bytes = compileBombModule(20_000, 5_000);
  assert.ok(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>));
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'bomb' })), 'functionLocals');
});

shape('should refuse locals × blocks above the compile-cost bound, each below its own :: ERR_LIMIT', async () => {
  const bytes = compileBombModule(5_000, 2_000);
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'bomb' })), 'functionCompileCost');
});

shape('should refuse a function with no locals but 50,000 values on its stack at each of 5,000 blocks before compiling it :: ERR_LIMIT', async () => {
  // Locals × blocks is 0; V8's baseline compiler spends the operand stack at each block: 71 s at the first call.
  const bytes = stackBombModule(50_000, 5_000);
  assert.ok(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>));
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'bomb' })), 'functionCompileCost');
});

shape('should count the operand stack at each control point, exactly for constants, calls and drops', () => {
  const measured = readModuleShape(stackBombModule(100, 10));
  // Each of the 10 blocks and its br sees 100 values and no locals: 2 × 10 × (0 + 1 + 100).
  assert.is(measured.functionControl, 20);
  assert.is(measured.functionCompileCost, 20 * 101);
});

shape('should refuse a module of functions each within the compile-cost bound, too costly together :: ERR_LIMIT', async () => {
  const perFunction = (1_000 + 1) * 1_000;
  const functions = Math.floor(WASM_MODULE_BOUNDS.moduleCompileCost / perFunction) + 1;
  const bytes = compileBombModule(1_000, 1_000, functions);
  assert.ok(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>));
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'many' })), 'moduleCompileCost');
  // One function fewer than that is accepted.
  await compileExtensionModule(compileBombModule(1_000, 1_000, functions - 1), { name: 'fewer' });
});

shape('should refuse nesting above the bound :: ERR_LIMIT', async () => {
  const bytes = compileBombModule(0, WASM_MODULE_BOUNDS.blockDepth + 1);
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'deep' })), 'blockDepth');
});

shape('should refuse two funcref tables of 10,000,000 entries :: ERR_LIMIT', async () => {
  assertLimit(await rejection(compileExtensionModule(tablesModule(2, 10_000_000), { name: 'tables' })), 'tableEntries');
});

shape('should refuse more tables than the bound, however small :: ERR_LIMIT', async () => {
  assertLimit(await rejection(compileExtensionModule(tablesModule(WASM_MODULE_BOUNDS.tables + 1, 1), { name: 'tables' })), 'tables');
});

shape('should cap a table declaring no maximum: table.grow in a call stops at the bound', async () => {
  const module = await compileExtensionModule(tablesModule(1, 10), { name: 'grow' });
  const { exports } = await WebAssembly.instantiate(module);
  const grow = exports.grow as (n: number) => number;
  const table = exports.table as WebAssembly.Table;
  // Inside wasm code, as a guest's call would: refused (-1) past the cap, allowed up to it.
  assert.is(grow(10_000_000), -1);
  assert.is(grow(WASM_MODULE_BOUNDS.tableEntries - 10), 10);
  assert.is(table.length, WASM_MODULE_BOUNDS.tableEntries);
  assert.is(grow(1), -1);
  assert.throws(() => table.grow(1));
});

shape('should lower a declared table maximum above the bound, and keep one below it', async () => {
  const high = await WebAssembly.instantiate(await compileExtensionModule(tablesModule(1, 1, 20_000_000), { name: 'high' }));
  assert.is((high.exports.grow as (n: number) => number)(WASM_MODULE_BOUNDS.tableEntries), -1);
  const low = await WebAssembly.instantiate(await compileExtensionModule(tablesModule(1, 1, 5), { name: 'low' }));
  assert.is((low.exports.grow as (n: number) => number)(4), 1);
  assert.is((low.exports.grow as (n: number) => number)(1), -1);
});

shape('should refuse element segments holding more entries than the tables can, together :: ERR_LIMIT', async () => {
  // Each segment is a heap array at its first table.init: 6 of 10,000,000 took the host's RSS past 750 MB.
  const half = WASM_MODULE_BOUNDS.elementEntries / 2;
  const bytes = elementSegmentsModule(2, half + 1);
  assert.ok(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>));
  assertLimit(await rejection(compileExtensionModule(bytes, { name: 'elements' })), 'elementEntries');
  assert.is(readModuleShape(elementSegmentsModule(2, half)).elementEntries, 2 * half);
});

shape('should refuse custom sections above the bound :: ERR_LIMIT', () => {
  const size = WASM_MODULE_BOUNDS.customSectionBytes + 1;
  const bytes = new Uint8Array(8 + 1 + uleb(size).length + size);
  bytes.set([0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 0, ...uleb(size), 1, 0x78]);
  assert.throws(() => readModuleShape(bytes), (e: unknown) => e instanceof ModuleShapeError && e.limit === 'customSectionBytes');
});

shape('should refuse an instruction it cannot measure (the GC prefix) and truncated bytes :: ERR_USAGE', async () => {
  const gc = compileBombModule(1, 1);
  // Replace the first `i32.const 1` with a GC-prefixed opcode.
  const at = gc.indexOf(0x41, 30);
  gc[at] = 0xfb;
  assert.throws(() => readModuleShape(gc), (e: unknown) => e instanceof ModuleShapeError && e.limit === undefined);
  const truncated = compileBombModule(10, 10).subarray(0, 40);
  const error = await rejection(compileExtensionModule(truncated, { name: 'cut' }));
  assert.ok(isMepError(error) && error.code === LocalErrorCode.Usage, String(error));
});

/** Every instruction of the proposals refused by construction, with its immediates. */
const REFUSED: [string, number[], string][] = [
  ['try', [0x06, 0x40], 'exception-handling'], ['catch', [0x07, 0], 'exception-handling'], ['throw', [0x08, 0], 'exception-handling'],
  ['rethrow', [0x09, 0], 'exception-handling'], ['throw_ref', [0x0a], 'exception-handling'], ['delegate', [0x18, 0], 'exception-handling'],
  ['catch_all', [0x19], 'exception-handling'], ['try_table', [0x1f, 0x40, 0], 'exception-handling'],
  ['return_call', [0x12, 0], 'tail-call'], ['return_call_indirect', [0x13, 0, 0], 'tail-call'], ['return_call_ref', [0x15, 0], 'tail-call'],
  ['memory.atomic.notify', [0xfe, 0x00, 2, 0], 'threads'], ['memory.atomic.wait32', [0xfe, 0x01, 2, 0], 'threads'],
  ['memory.atomic.wait64', [0xfe, 0x02, 3, 0], 'threads'], ['atomic.fence', [0xfe, 0x03, 0], 'threads'], ['i32.atomic.rmw.add', [0xfe, 0x1e, 2, 0], 'threads'],
];

shape('should refuse every instruction of the threads, exception-handling and tail-call proposals, and tags, by construction :: -32012', async () => {
  for (const [name, code, feature] of REFUSED) {
    // Behind a nop and inside a block, so no position in a body lets it through.
    assert.throws(() => readModuleShape(instructionModule([0x01, 0x02, 0x40, ...code, 0x0b])), (e: unknown) => e instanceof ModuleShapeError && e.feature === feature, name);
  }
  assert.throws(() => readModuleShape(instructionModule([], true)), (e: unknown) => e instanceof ModuleShapeError && e.feature === 'exception-handling' && /imported tag/.test(e.message));
  assert.throws(() => readModuleShape(loadWatFixture('throw')), (e: unknown) => e instanceof ModuleShapeError && /tag section/.test(e.message));
  const error = await rejection(compileExtensionModule(loadWatFixture('atomic-wait'), { name: 'wait' }));
  assert.ok(isMepError(error) && error.code === ErrorCode.PermissionDenied, String(error));
  assert.equal(error.data, { extension: 'wait', reason: 'wasm-feature', feature: 'threads' });
  assert.match(error.message, /memory\.atomic|atomic instruction/);
  assert.match(error.message, /build without -matomics/);
});

shape('should accept the proposals guests use: bulk memory, sign extension, saturating conversions, SIMD, reference types, multi-value', async () => {
  await compileExtensionModule(loadWatFixture('proposals'), { name: 'proposals' });
});

shape.run();
