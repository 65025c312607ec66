/**
 * Backend options: decoding without coercion, defaults applied once, and validation that
 * reports AVRO004 before the IR is read.
 */
import { invalidOption } from './diagnostics.ts';
import type { AvroPrimitive } from './model.ts';

/** A per-FQName override of the Avro physical and logical type. */
export interface TypeMapping {
  readonly type: AvroPrimitive;
  readonly logicalType?: string;
  readonly precision?: number;
  readonly scale?: number;
}

/** Decoded, validated backend options. */
export interface AvroOptions {
  readonly representation: 'json' | 'idl';
  readonly projection: 'schemas' | 'protocol-public' | 'protocol-entry-points';
  readonly dependencies: 'self-contained' | 'linked' | 'shared';
  readonly aliases: 'inline' | 'wrapper-record';
  readonly unsupported: 'error' | 'warn-and-skip';
  readonly logicalTypes: boolean;
  readonly decimalPrecision: number;
  readonly decimalScale: number;
  /**
   * Where a custom type's constructor records live: `type` puts them in `<namespace>.<Type>`
   * (the reference's mapping), `lowercase-type` in `<namespace>.<type in lower case>`, so that
   * Java code generated from them has no package named like a class.
   */
  readonly constructorNamespace: 'type' | 'lowercase-type';
  /** How `.avdl` annotations spell property names: `@morphir.fqname` or `@morphir-fqname`. */
  readonly idlPropertyNames: 'dotted' | 'hyphenated';
  /** Keyed by canonical FQName. */
  readonly typeMappings: ReadonlyMap<string, TypeMapping>;
}

/** The defaults, equal to the reference backend's. */
export const DEFAULT_OPTIONS: AvroOptions = {
  representation: 'json',
  projection: 'schemas',
  dependencies: 'self-contained',
  aliases: 'inline',
  unsupported: 'error',
  logicalTypes: true,
  decimalPrecision: 38,
  decimalScale: 10,
  constructorNamespace: 'type',
  idlPropertyNames: 'dotted',
  typeMappings: new Map(),
};

const ENUMS = {
  representation: ['json', 'idl'],
  projection: ['schemas', 'protocol-entry-points', 'protocol-public'],
  dependencies: ['self-contained', 'linked', 'shared'],
  aliases: ['inline', 'wrapper-record'],
  unsupported: ['error', 'warn-and-skip'],
  constructor_namespace: ['type', 'lowercase-type'],
  idl_property_names: ['dotted', 'hyphenated'],
} as const;

/** The option keys of {@link ENUMS} whose field in {@link AvroOptions} is spelled differently. */
const ENUM_FIELDS: Partial<Record<keyof typeof ENUMS, keyof AvroOptions>> = {
  constructor_namespace: 'constructorNamespace',
  idl_property_names: 'idlPropertyNames',
};

const PHYSICAL_TYPES: readonly AvroPrimitive[] = ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'];
const OPTION_KEYS = [...Object.keys(ENUMS), 'logical_types', 'decimal_precision', 'decimal_scale', 'type_mappings'];
const MAPPING_KEYS = ['type', 'logical_type', 'precision', 'scale'];
const U32_MAX = 0xffffffff;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

function u32(value: unknown, path: string, source?: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
    throw invalidOption(`${path} must be an unsigned 32-bit integer, got ${JSON.stringify(value) ?? describe(value)}`, source);
  }
  return value;
}

function decodeMapping(name: string, value: unknown): TypeMapping {
  const path = `type_mappings.${name}`;
  if (!isObject(value)) throw invalidOption(`${path} must be an object, got ${describe(value)}`, name);
  for (const key of Object.keys(value).sort()) {
    if (!MAPPING_KEYS.includes(key)) {
      throw invalidOption(`${path} has unknown field "${key}"; expected one of ${MAPPING_KEYS.join(', ')}`, name);
    }
  }
  const type = value.type;
  if (typeof type !== 'string') throw invalidOption(`${path}.type must be a string naming an Avro physical type`, name);
  if (!(PHYSICAL_TYPES as readonly string[]).includes(type)) {
    throw invalidOption(`${path}.type has unsupported Avro physical type "${type}"; expected one of ${PHYSICAL_TYPES.join('|')}`, name);
  }
  const logical = value.logical_type;
  if (logical !== undefined && logical !== null && typeof logical !== 'string') {
    throw invalidOption(`${path}.logical_type must be a string`, name);
  }
  const precision = value.precision === undefined || value.precision === null ? undefined : u32(value.precision, `${path}.precision`, name);
  const scale = value.scale === undefined || value.scale === null ? undefined : u32(value.scale, `${path}.scale`, name);
  const mapping: TypeMapping = { type: type as AvroPrimitive };
  return {
    ...mapping,
    ...(typeof logical === 'string' ? { logicalType: logical } : {}),
    ...(precision !== undefined ? { precision } : {}),
    ...(scale !== undefined ? { scale } : {}),
  };
}

function validate(options: AvroOptions): void {
  if (options.dependencies === 'shared' && options.representation !== 'json') {
    throw invalidOption('dependencies=shared needs representation=json (one .avsc per named type); use dependencies=linked for IDL');
  }
  if (options.decimalPrecision === 0) throw invalidOption('decimal_precision must be greater than zero');
  if (options.decimalScale > options.decimalPrecision) {
    throw invalidOption(`decimal_scale (${options.decimalScale}) must not exceed decimal_precision (${options.decimalPrecision})`);
  }
  for (const [name, mapping] of options.typeMappings) {
    const isDecimal = mapping.logicalType === 'decimal';
    if ((mapping.precision !== undefined || mapping.scale !== undefined) && !isDecimal) {
      throw invalidOption(`type_mappings.${name}.precision and scale require logical_type = "decimal"`, name);
    }
    if (!isDecimal) continue;
    if (mapping.type !== 'bytes') throw invalidOption(`type_mappings.${name}.logical_type = "decimal" requires type = "bytes"`, name);
    const precision = mapping.precision ?? options.decimalPrecision;
    const scale = mapping.scale ?? options.decimalScale;
    if (precision === 0) throw invalidOption(`type_mappings.${name}.precision must be greater than zero`, name);
    if (scale > precision) {
      throw invalidOption(`type_mappings.${name}.scale (${scale}) must not exceed effective precision (${precision})`, name);
    }
  }
}

/**
 * Decode and validate the `options` of a generate request. Keys are read in sorted order so
 * the reported error never depends on the order the host built its map in.
 * @throws {AvroError} AVRO004 for an unknown key, a wrongly typed value or an invalid combination.
 */
export function parseOptions(raw: unknown): AvroOptions {
  if (raw === undefined || raw === null) return DEFAULT_OPTIONS;
  if (!isObject(raw)) throw invalidOption(`options must be an object, got ${describe(raw)}`);
  const out: { -readonly [K in keyof AvroOptions]: AvroOptions[K] } = { ...DEFAULT_OPTIONS };
  for (const key of Object.keys(raw).sort()) {
    const value = raw[key];
    if (!OPTION_KEYS.includes(key)) {
      throw invalidOption(`unknown option "${key}"; expected one of ${[...OPTION_KEYS].sort().join(', ')}`);
    }
    if (key in ENUMS) {
      const allowed = ENUMS[key as keyof typeof ENUMS] as readonly string[];
      if (typeof value !== 'string' || !allowed.includes(value)) {
        throw invalidOption(`${key} must be one of ${allowed.join('|')}, got ${JSON.stringify(value) ?? describe(value)}`);
      }
      (out as Record<string, unknown>)[ENUM_FIELDS[key as keyof typeof ENUMS] ?? key] = value;
    } else if (key === 'logical_types') {
      if (typeof value !== 'boolean') throw invalidOption(`logical_types must be a boolean, got ${describe(value)}`);
      out.logicalTypes = value;
    } else if (key === 'decimal_precision') {
      out.decimalPrecision = u32(value, key);
    } else if (key === 'decimal_scale') {
      out.decimalScale = u32(value, key);
    } else {
      if (!isObject(value)) throw invalidOption(`type_mappings must be an object keyed by canonical FQName, got ${describe(value)}`);
      const mappings = new Map<string, TypeMapping>();
      for (const name of Object.keys(value).sort()) mappings.set(name, decodeMapping(name, value[name]));
      out.typeMappings = mappings;
    }
  }
  validate(out);
  return out;
}

