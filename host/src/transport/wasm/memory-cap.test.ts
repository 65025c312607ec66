import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { capMemorySection, capSections, capTableSection, MemoryCapError, readU32, writeU32 } from './memory-cap.ts';

const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
/** A module with only a memory section holding the given limits bytes. */
const withMemory = (limits: number[]): Uint8Array => Uint8Array.from([...header, 5, ...writeU32(limits.length + 1), 1, ...limits]);
const valid = (bytes: Uint8Array): void => assert.ok(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>));

const leb = suite('leb128');
leb('should round-trip u32 values :: edges', () => {
  for (const value of [0, 1, 127, 128, 16_384, 65_536, 0xffff_ffff]) {
    const bytes = Uint8Array.from(writeU32(value));
    assert.equal(readU32(bytes, 0), { value, next: bytes.length });
  }
});
leb('should refuse a truncated number', () => {
  assert.throws(() => readU32(Uint8Array.from([0x80, 0x80]), 0), (e: unknown) => e instanceof MemoryCapError && e.reason === 'malformed');
});
leb.run();

const cap = suite('capMemorySection');
cap('should add a maximum when none is declared', () => {
  const out = capMemorySection(withMemory([0x00, 2]), 16);
  assert.ok(out.changed);
  assert.equal(out.minPages, 2);
  assert.equal([...out.bytes.subarray(8)], [5, 4, 1, 0x03, 2, 16]);
  valid(out.bytes);
});
cap('should lower a declared maximum above the cap :: multi-byte LEB', () => {
  const out = capMemorySection(withMemory([0x01, 1, ...writeU32(65_536)]), 4096);
  assert.equal([...out.bytes.subarray(8)], [5, 5, 1, 0x03, 1, ...writeU32(4096)]);
  valid(out.bytes);
});
cap('should keep a declared maximum below the cap, and declare the memory shared (grown in place)', () => {
  const out = capMemorySection(withMemory([0x01, 1, 3]), 4096);
  assert.equal([...out.bytes.subarray(8)], [5, 4, 1, 0x03, 1, 3]);
  valid(out.bytes);
  const shared = withMemory([0x03, 1, 3]);
  assert.is(capMemorySection(shared, 4096).bytes, shared);
  // Where the platform has no shared memory, the memory stays unshared.
  const unshared = withMemory([0x01, 1, 3]);
  assert.is(capMemorySection(unshared, 4096, false).bytes, unshared);
});
cap('should keep the sections around the memory section', () => {
  // A custom section before and after the memory section.
  const custom = [0, 3, 1, 0x61, 0x62];
  const bytes = Uint8Array.from([...header, ...custom, 5, 3, 1, 0x00, 1, ...custom]);
  const out = capMemorySection(bytes, 8);
  assert.equal([...out.bytes], [...header, ...custom, 5, 4, 1, 0x03, 1, 8, ...custom]);
  valid(out.bytes);
});
cap('should refuse a minimum above the cap', () => {
  assert.throws(
    () => capMemorySection(withMemory([0x00, ...writeU32(5000)]), 4096),
    (e: unknown) => e instanceof MemoryCapError && e.reason === 'min-above-cap' && e.minPages === 5000,
  );
});
cap('should refuse bytes that are not wasm', () => {
  assert.throws(() => capMemorySection(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 1), (e: unknown) => e instanceof MemoryCapError && e.reason === 'malformed');
});
cap('should leave a module without memory alone', () => {
  const bytes = Uint8Array.from(header);
  assert.equal(capMemorySection(bytes, 1), { bytes, minPages: 0, changed: false });
});
cap.run();

const both = suite('capSections');
/** A module with a custom section, a table section (funcref, the given limits) and a memory section, then another custom section. */
const withBoth = (table: number[], memory: number[]): Uint8Array => {
  const custom = [0, 3, 1, 0x61, 0x62];
  return Uint8Array.from([...header, ...custom, 4, ...writeU32(table.length + 2), 1, 0x70, ...table, 5, ...writeU32(memory.length + 1), 1, ...memory, ...custom]);
};
both('should give the bytes of capping the memory, then the table, in one copy', () => {
  for (const [table, memory] of [
    [[0x00, 2], [0x00, 1]],
    [[0x01, 1, ...writeU32(100_000)], [0x01, 1, ...writeU32(65_536)]],
    [[0x01, 1, 3], [0x03, 1, 3]],
    [[0x01, 1, 3], [0x00, 1]],
    [[0x00, 4], [0x03, 1, 3]],
  ] as [number[], number[]][]) {
    const bytes = withBoth(table, memory);
    const twice = capTableSection(capMemorySection(bytes, 4096).bytes, 1000);
    const once = capSections(bytes, 4096, 1000);
    assert.equal([...once.bytes], [...twice.bytes], JSON.stringify([table, memory]));
    assert.is(once.minPages, capMemorySection(bytes, 4096).minPages);
    assert.is(once.changed, once.bytes !== bytes);
    valid(once.bytes);
  }
  const kept = withBoth([0x01, 1, 3], [0x03, 1, 3]);
  assert.is(capSections(kept, 4096, 1000).bytes, kept);
});
both('should refuse the memory first, then the table, as capping them in turn does', () => {
  const memoryTooBig = (e: unknown): boolean => e instanceof MemoryCapError && e.reason === 'min-above-cap' && e.minPages === 5000;
  assert.throws(() => capSections(withBoth([0x00, ...writeU32(2000)], [0x00, ...writeU32(5000)]), 4096, 1000), memoryTooBig);
  assert.throws(() => capSections(withBoth([0x00, ...writeU32(2000)], [0x00, 1]), 4096, 1000), (e: unknown) => e instanceof MemoryCapError && e.reason === 'min-above-cap' && e.minPages === 2000);
  assert.throws(() => capSections(Uint8Array.from([...header, 5, 9, 1]), 1, 1), (e: unknown) => e instanceof MemoryCapError && e.reason === 'malformed');
  assert.throws(() => capSections(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 1, 1), (e: unknown) => e instanceof MemoryCapError && e.reason === 'malformed');
});
both('should rewrite in place, without a copy, the bytes a caller gives up with room before them', () => {
  for (const [table, memory] of [
    [[0x00, 2], [0x00, 1]],
    [[0x01, 1, ...writeU32(100_000)], [0x01, 1, ...writeU32(65_536)]],
    [[0x00, 4], [0x03, 1, 3]],
  ] as [number[], number[]][]) {
    const module = withBoth(table, memory);
    const copied = capSections(module, 4096, 1000);
    const room = new Uint8Array(16 + module.length);
    room.set(module, 16);
    const given = room.subarray(16);
    const inPlace = capSections(given, 4096, 1000, undefined, 16);
    assert.equal([...inPlace.bytes], [...copied.bytes], JSON.stringify([table, memory]));
    assert.is(inPlace.bytes.buffer, room.buffer, 'the same memory: nothing copied');
    assert.is(inPlace.bytes.byteOffset + inPlace.bytes.length, room.length, 'ending where the module ended');
    // Without the room it needs (or with none given), a copy, and the bytes are left as they were.
    const tight = Uint8Array.from(module);
    const grows = copied.bytes.length > module.length;
    const fallback = capSections(tight, 4096, 1000, undefined, 0);
    assert.equal([...fallback.bytes], [...copied.bytes]);
    if (grows) assert.equal([...tight], [...module], 'not rewritten when there is no room');
    assert.equal([...capSections(Uint8Array.from(module), 4096, 1000).bytes], [...copied.bytes]);
  }
});
both('should leave a module without table or memory alone', () => {
  const bytes = Uint8Array.from(header);
  assert.equal(capSections(bytes, 1, 1), { bytes, minPages: 0, changed: false });
});
both.run();
