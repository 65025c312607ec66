import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { ensureEngine } from '../engine/index.ts';
import { memorySegments } from './internal/data-segments.ts';
import { ByteReader, ByteWriter, readSections, readVector, SectionId } from './internal/wasm-binary.ts';
import { engineLayout, linkGuest } from './link.ts';

const binary = suite('wasm binary :: LEB128');

binary('should round-trip unsigned and signed integers at their edges', () => {
  const unsigned = [0, 1, 127, 128, 16383, 16384, 2 ** 31, 2 ** 32 - 1];
  const signed = [0n, 1n, -1n, 63n, 64n, -64n, -65n, 2n ** 31n - 1n, -(2n ** 31n), 2n ** 63n - 1n, -(2n ** 63n)];
  const w = new ByteWriter();
  for (const n of unsigned) w.u32(n);
  for (const n of signed) w.s64(n);
  const r = new ByteReader(w.toBytes());
  assert.equal(unsigned.map(() => r.u32()), unsigned);
  assert.equal(signed.map(() => r.s64()), signed);
  assert.ok(r.done);
});

binary('should refuse a truncated module', () => {
  assert.throws(() => readSections(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 0)), /unexpected end/);
  assert.throws(() => readSections(Uint8Array.of(1, 2, 3)), /not a WebAssembly/);
});

const segments = suite('data segments :: from a memory image');

segments('should skip zeros and merge runs separated by short gaps only', () => {
  const memory = new Uint8Array(256);
  memory.set([1, 2], 10); // 10..12
  memory.set([3], 14); // gap of 2: merged
  memory.set([4], 100); // gap of 85: split
  memory[255] = 5;
  const s = memorySegments(memory, 8);
  assert.equal(s.map((x) => [x.offset, [...x.bytes]]), [[10, [1, 2, 0, 0, 3]], [100, [4]], [255, [5]]]);
  assert.equal(memorySegments(new Uint8Array(64), 8), []);
});

segments('should read an unaligned view byte by byte', () => {
  const buffer = new Uint8Array(33);
  buffer[32] = 9;
  const s = memorySegments(buffer.subarray(1), 4);
  assert.equal(s.map((x) => [x.offset, [...x.bytes]]), [[31, [9]]]);
});

const link = suite('linkGuest :: byte-level link of engine and snapshot');

link('should export memory, the host-channel attach points and one () -> i32 function per JS export, and carry the image as data', async () => {
  const engine = readFileSync((await ensureEngine()).wasmPath);
  const { stackTop } = engineLayout(engine);
  assert.ok(stackTop >= 64 * 1024, 'the stack lies below the data (--stack-first)');
  const memory = new Uint8Array(3 * 65536);
  memory.set([7, 7, 7], 2 * 65536 + 5);
  const wasm = linkGuest(engine, { memory }, ['handle', 'other']);
  const module = new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>);
  assert.equal(WebAssembly.Module.exports(module).map((e) => `${e.kind}:${e.name}`).sort(), ['function:handle', 'function:mep_host_attach', 'function:other', 'memory:memory', 'table:__indirect_function_table']);
  const data = readSections(wasm).find((s) => s.id === SectionId.Data)!;
  assert.is(readVector(data.body).count, 1);
  assert.ok(readSections(wasm).every((s) => s.id !== SectionId.Custom || new ByteReader(s.body).name() !== 'producers'));
});

link('should refuse an export name that the module reserves, as ERR_BUILD', async () => {
  const engine = readFileSync((await ensureEngine()).wasmPath);
  for (const name of ['memory', '_start']) {
    try {
      linkGuest(engine, { memory: new Uint8Array(65536) }, [name]);
      assert.unreachable();
    } catch (e) {
      assert.ok(isMepError(e) && e.code === LocalErrorCode.Build, String(e));
    }
  }
});

binary.run();
segments.run();
link.run();
