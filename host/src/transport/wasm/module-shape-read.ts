/**
 * The byte-level reading of a wasm binary for module-shape.ts: a bounds-checked cursor, value and
 * heap types, and the immediates of every instruction the host accepts. No I/O.
 */
import type { WasmModuleBound } from '../../protocol/limits.ts';

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

/** Skips the immediates of every opcode but the structured ones. */
export function immediates(s: Reader, op: number): void {
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

export function miscImmediates(s: Reader, sub: number): void {
  if (sub <= 7) return;
  if (sub === 8 || sub === 10 || sub === 12 || sub === 14) return void (s.u32(), s.u32());
  if (sub === 9 || sub === 11 || sub === 13 || (sub >= 15 && sub <= 17)) return void s.u32();
  throw new ModuleShapeError(`an instruction this host does not accept (0xfc ${sub})`);
}

export function simdImmediates(s: Reader, sub: number): void {
  if (sub <= 11 || sub === 92 || sub === 93) return memarg(s);
  if (sub === 12 || sub === 13) return s.skip(16);
  if (sub >= 21 && sub <= 34) return void s.byte();
  if (sub >= 84 && sub <= 91) return void (memarg(s), s.byte());
  if (sub <= 0x113) return;
  throw new ModuleShapeError(`an instruction this host does not accept (0xfd ${sub})`);
}

export function memarg(s: Reader): void {
  const align = s.u32();
  if (align & 0x40) s.u32();
  s.leb(10);
}

/** A value type: one byte, or a reference to a heap type. */
export function valueType(s: Reader): void {
  const b = s.byte();
  if (b === 0x63 || b === 0x64) heapType(s);
  else if (b < 0x69 || b > 0x7f) throw new ModuleShapeError(`an unknown value type 0x${b.toString(16)}`);
}

export function heapType(s: Reader): void {
  const b = s.peek();
  if (b >= 0x69 && b <= 0x74) return void s.byte();
  s.leb(5);
}

/** A cursor over `bytes[pos, end)`; every read is checked against `end`. */
export class Reader {
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
