/**
 * Avro IDL syntax pieces: type expressions (with logical-type shorthands), annotations, doc
 * comments, paths and relative imports.
 */
import { invalidOption } from './diagnostics.ts';
import type { AvroMessage, AvroType, FullName, JsonValue, Properties } from './model.ts';
import { escapeIdlIdentifier } from './naming.ts';

/**
 * How a property name is written after `@`. Avro 1.8's IDL grammar (Debian bookworm's
 * libavro-compiler-java) reads names of identifiers joined by `-` only, so `@morphir.fqname`
 * stops it; `idl_property_names=hyphenated` writes `@morphir-fqname` instead.
 */
export type PropertySpelling = (name: string) => string;

/** The property's own name (`idl_property_names=dotted`, as the reference). */
export const DOTTED: PropertySpelling = (name) => name;

/** Every `.` of the name as `-` (`idl_property_names=hyphenated`). */
export const HYPHENATED: PropertySpelling = (name) => name.split('.').join('-');

// Sorted by the name as written, so either spelling gives annotations in a stable order.
const sortedEntries = (props: Properties, spell: PropertySpelling): [string, JsonValue][] =>
  Object.keys(props)
    .map((key): [string, JsonValue] => [spell(key), props[key]])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** `@name(json)` per property, each on its own line. */
export function annotations(indent: string, props: Properties, spell: PropertySpelling): string {
  return sortedEntries(props, spell)
    .map(([key, value]) => `${indent}@${key}(${JSON.stringify(value)})\n`)
    .join('');
}

/** `@name(json) ` per property, inline before a type or name. */
export function inlineAnnotations(props: Properties, spell: PropertySpelling): string {
  return sortedEntries(props, spell)
    .map(([key, value]) => `@${key}(${JSON.stringify(value)}) `)
    .join('');
}

/** Dotted full name with each component escaped. */
export function idlFullName(name: FullName): string {
  const parts = name.namespace === '' ? [] : name.namespace.split('.');
  return [...parts, name.name].map(escapeIdlIdentifier).join('.');
}

const SHORTHANDS: Record<string, { physical: string; text: string }> = {
  date: { physical: 'int', text: 'date' },
  'time-millis': { physical: 'long', text: 'time_ms' },
  'timestamp-millis': { physical: 'long', text: 'timestamp_ms' },
  'local-timestamp-millis': { physical: 'long', text: 'local_timestamp_ms' },
  uuid: { physical: 'string', text: 'uuid' },
};

function integerProperty(props: Properties, key: string): number {
  const value = props[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidOption(`logical type property ${key}`);
  return value;
}

function logicalType(physical: AvroType, name: string, props: Properties, spell: PropertySpelling): string {
  const physicalName = physical.kind === 'primitive' ? physical.name : undefined;
  if (name === 'decimal' && physicalName === 'bytes') {
    const rest: Record<string, JsonValue> = { ...props };
    delete rest.precision;
    delete rest.scale;
    delete rest.logicalType;
    return `${inlineAnnotations(rest, spell)}decimal(${integerProperty(props, 'precision')}, ${integerProperty(props, 'scale')})`;
  }
  const shorthand = SHORTHANDS[name];
  if (shorthand && shorthand.physical === physicalName) {
    const rest: Record<string, JsonValue> = { ...props };
    delete rest.logicalType;
    return `${inlineAnnotations(rest, spell)}${shorthand.text}`;
  }
  return `${inlineAnnotations({ ...props, logicalType: name }, spell)}${idlType(physical, spell)}`;
}

/** An IDL type expression. */
export function idlType(tpe: AvroType, spell: PropertySpelling): string {
  switch (tpe.kind) {
    case 'primitive':
      return tpe.name;
    case 'array':
      return `${inlineAnnotations(tpe.props, spell)}array<${idlType(tpe.items, spell)}>`;
    case 'map':
      return `${inlineAnnotations(tpe.props, spell)}map<${idlType(tpe.values, spell)}>`;
    case 'union':
      return `union { ${tpe.branches.map((branch) => idlType(branch, spell)).join(', ')} }`;
    case 'named':
      return idlFullName(tpe.fullName);
    case 'logical':
      return logicalType(tpe.physical, tpe.logicalType, tpe.props, spell);
    case 'annotated':
      return `${inlineAnnotations(tpe.props, spell)}${idlType(tpe.physical, spell)}`;
  }
}

function containsNamed(tpe: AvroType): boolean {
  switch (tpe.kind) {
    case 'named':
      return true;
    case 'array':
      return containsNamed(tpe.items);
    case 'map':
      return containsNamed(tpe.values);
    case 'union':
      return tpe.branches.some(containsNamed);
    case 'logical':
    case 'annotated':
      return containsNamed(tpe.physical);
    case 'primitive':
      return false;
  }
}

/** Avro Tools' default IDL reader rejects annotated messages with named responses. */
export function requiresJavaCc(message: AvroMessage): boolean {
  return Object.keys(message.props).length > 0 && containsNamed(message.response);
}

function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

function escapeDocLine(line: string): string {
  let out = '';
  for (const c of line) {
    const code = c.charCodeAt(0);
    out += isControl(code) ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out.split('*/').join('* /');
}

/** A `/** … *\/` doc comment; `*\/` and control characters inside the text are neutralized. */
export function docComment(indent: string, doc: string | undefined): string {
  if (doc === undefined) return '';
  const lines = doc.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const body = lines.map((line) => `${indent} * ${escapeDocLine(line.endsWith('\r') ? line.slice(0, -1) : line)}\n`).join('');
  return `${indent}/**\n${body}${indent} */\n`;
}

/** `<namespace segments>/<Name>.avdl`. */
export function idlPath(name: FullName): string {
  const parts = name.namespace.split('.').filter((part) => part !== '');
  parts.push(name.name);
  return `${parts.join('/')}.avdl`;
}

/** Relative path from the file `from` to the file `to`. */
export function relativePath(from: string, to: string): string {
  const fromDirs = from.split('/').slice(0, -1);
  const toParts = to.split('/');
  let common = 0;
  while (common < fromDirs.length && common < toParts.length && fromDirs[common] === toParts[common]) common++;
  return [...fromDirs.slice(common).map(() => '..'), ...toParts.slice(common)].join('/');
}
