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
    /** The wasm proposal the module uses that the host refuses (see {@link refusedFeature}), when that is why. */
    readonly feature?: RefusedFeature,
  ) {
    super(message);
  }
}

/**
 * Proposals V8 runs that the host refuses by construction: no guest of `mep build` uses them (its
 * engine is MVP, sign extension and bulk memory) and each gives a guest a way out of its bounds:
 * atomics `memory.atomic.wait32/64` blocks its thread with no CPU spent (the host declares every
 * guest memory shared; inline, that thread is the host's), exception handling's `catch_all`
 * catches the host's own refusals (a second output, a pointer outside memory, a spent budget) and
 * answers anyway, and tail calls, which no guest needs, are left out so the engine runs no more than guests use.
 */
export type RefusedFeature = 'threads' | 'exception-handling' | 'tail-call';

/** The instructions of a refused proposal, by opcode (0xfe: every atomic). */
const REFUSED_OPCODES: ReadonlyMap<number, [RefusedFeature, string]> = new Map([
  [0x06, ['exception-handling', 'try']], [0x07, ['exception-handling', 'catch']], [0x08, ['exception-handling', 'throw']],
  [0x09, ['exception-handling', 'rethrow']], [0x0a, ['exception-handling', 'throw_ref']], [0x18, ['exception-handling', 'delegate']],
  [0x19, ['exception-handling', 'catch_all']], [0x1f, ['exception-handling', 'try_table']],
  [0x12, ['tail-call', 'return_call']], [0x13, ['tail-call', 'return_call_indirect']], [0x15, ['tail-call', 'return_call_ref']],
  [0xfe, ['threads', 'an atomic instruction (0xfe prefix)']],
]);

/** Throws when `op` is an instruction of a refused proposal ({@link RefusedFeature}). */
export function refuseOpcode(op: number, where: string): void {
  const refused = REFUSED_OPCODES.get(op);
  if (refused !== undefined) throw refusedFeature(refused[0], `${refused[1]} in ${where}`);
}

/** The error for a module using `feature` (`what`: the instruction or section, and where). */
export function refusedFeature(feature: RefusedFeature, what: string): ModuleShapeError {
  return new ModuleShapeError(`it uses the ${feature} proposal (${what})`, undefined, undefined, undefined, feature);
}

/** Skips the immediates of every opcode but the structured ones and those {@link refuseOpcode} refuses. */
export function immediates(s: Reader, op: number): void {
  if (op <= 0x01 || op === 0x05 || op === 0x0f || op === 0x1a || op === 0x1b || op === 0xd1 || op === 0xd3 || op === 0xd4) return;
  if ((op >= 0x45 && op <= 0xc4)) return;
  if (op === 0x0c || op === 0x0d || op === 0x10 || op === 0x14) return void s.u32();
  if (op >= 0x20 && op <= 0x26) return void s.u32();
  if (op === 0xd2 || op === 0xd5 || op === 0xd6) return void s.u32();
  if (op === 0x11) return void (s.u32(), s.u32());
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
/** Reads a value type; returns its first byte. */
export function valueType(s: Reader): number {
  const b = s.byte();
  if (b === 0x63 || b === 0x64) heapType(s);
  else if (b < 0x69 || b > 0x7f) throw new ModuleShapeError(`an unknown value type 0x${b.toString(16)}`);
  return b;
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
