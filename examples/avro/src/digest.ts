/**
 * Stable identities for generated Avro names. Byte encodings follow the reference backend
 * exactly (one-byte tags, u64 big-endian lengths, UTF-8 strings, sorted property maps), so
 * `Result<E><A>_<12-hex>` and `Tuple_<12-hex>` names equal the reference's.
 */
import type { AvroType, JsonValue, NamedType, Properties, TypeExpr } from './model.ts';
import { fullNameKey } from './model.ts';
import { memoized } from './memo.ts';
import { hexPrefix, sha256, u64, utf8 } from './sha256.ts';

/**
 * Identity bytes as a byte string (one char per byte), so encoding a type is string appends and
 * a finished identity can key the digest memo directly.
 */
class ByteWriter {
  bytes = '';

  tag(char: string): void {
    this.bytes += char;
  }

  length(value: number): void {
    // Nearly every length fits in its last byte.
    this.bytes += value < 256 ? `\0\0\0\0\0\0\0${String.fromCharCode(value)}` : u64(value);
  }

  string(value: string): void {
    const bytes = utf8(value);
    this.length(bytes.length);
    this.bytes += bytes;
  }
}

function encodeFields(out: ByteWriter, fields: readonly NamedType[]): void {
  out.length(fields.length);
  for (const field of fields) {
    out.string(field.name);
    encodeTypeExpr(out, field.tpe);
  }
}

function encodeTypeExpr(out: ByteWriter, tpe: TypeExpr): void {
  switch (tpe.kind) {
    case 'variable':
      out.tag('v');
      out.string(tpe.name);
      return;
    case 'reference':
      out.tag('r');
      out.string(tpe.source);
      out.length(tpe.args.length);
      for (const arg of tpe.args) encodeTypeExpr(out, arg);
      return;
    case 'tuple':
      out.tag('t');
      out.length(tpe.elements.length);
      for (const element of tpe.elements) encodeTypeExpr(out, element);
      return;
    case 'record':
      out.tag('c');
      encodeFields(out, tpe.fields);
      return;
    case 'extensible':
      out.tag('e');
      out.string(tpe.variable);
      encodeFields(out, tpe.fields);
      return;
    case 'function':
      out.tag('f');
      encodeTypeExpr(out, tpe.input);
      encodeTypeExpr(out, tpe.output);
      return;
    case 'unit':
      out.tag('u');
  }
}

/**
 * The 12-hex digest of a generic type application (`G`, source, arguments), independent of the
 * order types were traversed in.
 * @example typeApplicationDigest('morphir/SDK:result#result', [string, string]) // 'ea53b995971b'
 */
export function typeApplicationDigest(source: string, args: readonly TypeExpr[]): string {
  const out = new ByteWriter();
  out.tag('G');
  out.string(source);
  out.length(args.length);
  for (const arg of args) encodeTypeExpr(out, arg);
  return digest12(out.bytes);
}

function encodeJson(out: ByteWriter, value: JsonValue): void {
  if (value === null) out.tag('0');
  else if (typeof value === 'boolean') {
    out.tag('b');
    out.tag(value ? '1' : '0');
  }
  else if (typeof value === 'number') {
    out.tag('d');
    out.string(String(value));
  } else if (typeof value === 'string') {
    out.tag('s');
    out.string(value);
  } else if (Array.isArray(value)) {
    out.tag('a');
    out.length(value.length);
    for (const item of value) encodeJson(out, item);
  } else {
    out.tag('o');
    const keys = Object.keys(value).sort();
    out.length(keys.length);
    for (const key of keys) {
      out.string(key);
      encodeJson(out, value[key]);
    }
  }
}

function encodeProperties(out: ByteWriter, props: Properties): void {
  const keys = Object.keys(props).sort();
  out.length(keys.length);
  for (const key of keys) {
    out.string(key);
    encodeJson(out, props[key]);
  }
}

const PRIMITIVE_TAGS: Record<string, string> = {
  null: 'n', boolean: 'b', int: 'i', long: 'l', float: 'f', double: 'd', bytes: 'y', string: 's',
};

function encodeAvroType(out: ByteWriter, tpe: AvroType): void {
  switch (tpe.kind) {
    case 'primitive':
      out.tag(PRIMITIVE_TAGS[tpe.name]);
      return;
    case 'array':
      out.tag('a');
      encodeAvroType(out, tpe.items);
      encodeProperties(out, tpe.props);
      return;
    case 'map':
      out.tag('m');
      encodeAvroType(out, tpe.values);
      encodeProperties(out, tpe.props);
      return;
    case 'union':
      out.tag('u');
      out.length(tpe.branches.length);
      for (const branch of tpe.branches) encodeAvroType(out, branch);
      return;
    case 'named':
      out.tag('r');
      out.string(fullNameKey(tpe.fullName));
      return;
    case 'logical':
      out.tag('g');
      encodeAvroType(out, tpe.physical);
      out.string(tpe.logicalType);
      encodeProperties(out, tpe.props);
      return;
    case 'annotated':
      out.tag('t');
      encodeAvroType(out, tpe.physical);
      encodeProperties(out, tpe.props);
  }
}

/**
 * The identity bytes (a byte string) of a tuple of projected element types, used to claim
 * `Tuple_<digest>`.
 */
export function tupleIdentity(elements: readonly AvroType[]): string {
  const out = new ByteWriter();
  out.tag('T');
  out.length(elements.length);
  for (const element of elements) encodeAvroType(out, element);
  return out.bytes;
}

/**
 * 12-hex digest of arbitrary identity bytes (a byte string); memoized, as a model hashes the same
 * few identities (`Result String Int`) thousands of times.
 */
export const digest12: (identity: string) => string = memoized((identity) => hexPrefix(sha256(identity), 6));

/** 8-hex digest of a string (the reference's `Type<hex>` suffix for structural arguments). */
export function digest8(text: string): string {
  return digest12(utf8(text)).slice(0, 8);
}

/** Human-readable canonical spelling of a type expression (registry identities, messages). */
export function canonicalType(tpe: TypeExpr): string {
  const fieldList = (fields: readonly NamedType[]): string => fields.map((f) => `${f.name}:${canonicalType(f.tpe)}`).join(',');
  switch (tpe.kind) {
    case 'variable':
      return `var(${tpe.name})`;
    case 'reference':
      return `ref(${tpe.source};${tpe.args.map(canonicalType).join(',')})`;
    case 'tuple':
      return `tuple(${tpe.elements.map(canonicalType).join(',')})`;
    case 'record':
      return `record(${fieldList(tpe.fields)})`;
    case 'extensible':
      return `extensible(${tpe.variable};${fieldList(tpe.fields)})`;
    case 'function':
      return `function(${canonicalType(tpe.input)};${canonicalType(tpe.output)})`;
    case 'unit':
      return 'unit';
  }
}

/** Node count of a type expression; a recursive specialization must shrink to be safe. */
export function typeComplexity(tpe: TypeExpr): number {
  switch (tpe.kind) {
    case 'variable':
    case 'unit':
      return 1;
    case 'reference':
      return 1 + tpe.args.reduce((sum, arg) => sum + typeComplexity(arg), 0);
    case 'tuple':
      return 1 + tpe.elements.reduce((sum, e) => sum + typeComplexity(e), 0);
    case 'record':
    case 'extensible':
      return 1 + tpe.fields.reduce((sum, f) => sum + typeComplexity(f.tpe), 0);
    case 'function':
      return 1 + typeComplexity(tpe.input) + typeComplexity(tpe.output);
  }
}
