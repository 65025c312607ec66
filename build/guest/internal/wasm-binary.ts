/**
 * A minimal reader and writer of the WebAssembly binary format (MVP encoding: LEB128 integers,
 * length-prefixed sections). Enough to take a module apart into sections, read the few entries
 * the guest linker needs and write a module back; everything it does not touch is copied as bytes.
 */

/** Section ids of the core format. */
export const SectionId = {
  Custom: 0,
  Type: 1,
  Import: 2,
  Function: 3,
  Table: 4,
  Memory: 5,
  Global: 6,
  Export: 7,
  Start: 8,
  Element: 9,
  Code: 10,
  Data: 11,
  DataCount: 12,
} as const;

/** Export and import kinds. */
export const ExternalKind = { Function: 0, Table: 1, Memory: 2, Global: 3 } as const;

/** One section: its id and its contents (without the id byte and size). */
export interface Section {
  id: number;
  body: Uint8Array;
}

const MAGIC = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

/** Reads LEB128 integers, names and raw bytes from a buffer; throws on truncated input. */
export class ByteReader {
  pos: number;

  constructor(readonly bytes: Uint8Array, pos = 0) {
    this.pos = pos;
  }

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('wasm: unexpected end of input');
    return this.bytes[this.pos++]!;
  }

  /** Unsigned LEB128 up to 32 bits. */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 35) throw new RangeError('wasm: LEB128 too long');
    }
  }

  /** Signed LEB128 up to 64 bits (as a bigint). */
  s64(): bigint {
    let result = 0n;
    let shift = 0n;
    let b: number;
    do {
      b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    if (b & 0x40) result -= 1n << shift;
    return result;
  }

  take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new RangeError('wasm: unexpected end of input');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  name(): string {
    return new TextDecoder().decode(this.take(this.u32()));
  }
}

/** Appends bytes, LEB128 integers and names to a growing buffer. */
export class ByteWriter {
  private buf = new Uint8Array(1024);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  byte(b: number): this {
    this.reserve(1);
    this.buf[this.len++] = b & 0xff;
    return this;
  }

  /** Unsigned LEB128. */
  u32(n: number): this {
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n !== 0) b |= 0x80;
      this.byte(b);
    } while (n !== 0);
    return this;
  }

  /** Signed LEB128 (i32 or i64 constants). */
  s64(value: bigint | number): this {
    let n = BigInt(value);
    for (;;) {
      const b = Number(n & 0x7fn);
      n >>= 7n;
      if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) return this.byte(b);
      this.byte(b | 0x80);
    }
  }

  bytes(bytes: Uint8Array): this {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    return this;
  }

  name(text: string): this {
    const b = new TextEncoder().encode(text);
    return this.u32(b.length).bytes(b);
  }

  get length(): number {
    return this.len;
  }

  toBytes(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Splits a module into its sections, in order. Throws `RangeError` on a malformed binary. */
export function readSections(wasm: Uint8Array): Section[] {
  if (wasm.length < 8 || MAGIC.some((b, i) => wasm[i] !== b)) throw new RangeError('wasm: not a WebAssembly 1.0 binary');
  const r = new ByteReader(wasm, 8);
  const sections: Section[] = [];
  while (!r.done) {
    const id = r.byte();
    sections.push({ id, body: r.take(r.u32()) });
  }
  return sections;
}

/** Writes sections back into a module binary. */
export function writeModule(sections: readonly Section[]): Uint8Array {
  const w = new ByteWriter().bytes(Uint8Array.from(MAGIC));
  for (const s of sections) w.byte(s.id).u32(s.body.length).bytes(s.body);
  return w.toBytes();
}

/** The name of a custom section (its body starts with the name). */
export function customSectionName(section: Section): string {
  return new ByteReader(section.body).name();
}

/** Reads the `vec` of a section: its count and a reader positioned at the first entry. */
export function readVector(body: Uint8Array): { count: number; reader: ByteReader } {
  const reader = new ByteReader(body);
  return { count: reader.u32(), reader };
}

/** Returns `body` (a `vec` section) with `count` raised by `extra.length` and `extra` appended. */
export function appendToVector(body: Uint8Array, extra: readonly Uint8Array[]): Uint8Array {
  const { count, reader } = readVector(body);
  const w = new ByteWriter().u32(count + extra.length).bytes(body.subarray(reader.pos));
  for (const e of extra) w.bytes(e);
  return w.toBytes();
}

/** Skips a constant expression (up to and including its `end`); only MVP constant opcodes. */
export function skipConstExpr(r: ByteReader): void {
  for (;;) {
    const op = r.byte();
    if (op === 0x0b) return;
    if (op === 0x41 || op === 0x42) r.s64();
    else if (op === 0x43) r.take(4);
    else if (op === 0x44) r.take(8);
    else if (op === 0x23) r.u32();
    else throw new RangeError(`wasm: unsupported opcode 0x${op.toString(16)} in a constant expression`);
  }
}

/** One segment of a data section: a passive one, or the memory an active one fills and its offset when that is an `i32.const`. */
export interface DataSegmentEntry {
  passive: boolean;
  memory: number;
  offset: number | undefined;
  bytes: Uint8Array;
}

/** The segments of the data section of `sections`, in order (none without one). */
export function* dataSegments(sections: readonly Section[]): Generator<DataSegmentEntry> {
  const data = sections.find((s) => s.id === SectionId.Data);
  if (!data) return;
  const { count, reader } = readVector(data.body);
  for (let i = 0; i < count; i++) {
    const flags = reader.u32();
    if (flags === 1) {
      yield { passive: true, memory: 0, offset: undefined, bytes: reader.take(reader.u32()) };
      continue;
    }
    const memory = flags === 2 ? reader.u32() : 0;
    let offset: number | undefined;
    if (reader.bytes[reader.pos] === 0x41) {
      reader.byte();
      offset = Number(reader.s64());
    }
    skipConstExpr(reader); // the rest of the offset expression: its `end`
    yield { passive: false, memory, offset, bytes: reader.take(reader.u32()) };
  }
}

/** Reads resizable limits (flags, min, optional max). */
export function readLimits(r: ByteReader): { min: number; max?: number } {
  const flags = r.byte();
  const min = r.u32();
  return flags & 1 ? { min, max: r.u32() } : { min };
}

/** `wasm` with a custom section `name` holding `data` appended at its end (custom sections may go anywhere). */
export function appendCustomSection(wasm: Uint8Array, name: string, data: Uint8Array): Uint8Array {
  const body = new ByteWriter().name(name).bytes(data).toBytes();
  const header = new ByteWriter().byte(SectionId.Custom).u32(body.length).toBytes();
  const out = new Uint8Array(wasm.length + header.length + body.length);
  out.set(wasm, 0);
  out.set(header, wasm.length);
  out.set(body, wasm.length + header.length);
  return out;
}

/** The number of locals each function body of the code section declares (parameters not counted). */
export function functionLocals(wasm: Uint8Array): number[] {
  const code = readSections(wasm).find((s) => s.id === SectionId.Code);
  if (!code) return [];
  const { count, reader } = readVector(code.body);
  return Array.from({ length: count }, () => {
    const body = new ByteReader(reader.take(reader.u32()));
    let locals = 0;
    for (let groups = body.u32(); groups > 0; groups--) {
      locals += body.u32();
      body.byte(); // the value type
    }
    return locals;
  });
}
