/**
 * Morphir IR `formatVersion` recognition and value-signature normalization, shared by the IR
 * reader. Version errors are classified before the distribution is decoded.
 */
import { AVRO_CODES, type AvroCode } from './diagnostics.ts';
import type { NamedType, TypeExpr, ValueSpecification } from './model.ts';

const U32_MAX = 0xffffffff;

/** A failure to read the IR; becomes an error diagnostic with `code`, never a throw to the host. */
export class IrReadError extends Error {
  readonly code: AvroCode;

  constructor(code: AvroCode, message: string) {
    super(message);
    this.name = 'IrReadError';
    this.code = code;
  }
}

function versionError(code: AvroCode, message: string): IrReadError {
  return new IrReadError(code, message);
}

function parseRelease(source: string): [number, number, number] {
  const parts = source.split('.');
  const wellFormed =
    parts.length === 3 &&
    parts.every((part) => part !== '' && [...part].every((c) => c >= '0' && c <= '9') && !(part.length > 1 && part.charAt(0) === '0'));
  if (!wellFormed) throw versionError(AVRO_CODES.invalidFormatVersionSyntax, `formatVersion has invalid syntax: ${source}`);
  const values = parts.map(Number);
  if (values.some((value) => value > U32_MAX)) {
    throw versionError(AVRO_CODES.formatVersionOutOfRange, `formatVersion component is outside the unsigned 32-bit range: ${source}`);
  }
  if (values[0] < 3) throw versionError(AVRO_CODES.invalidFormatVersionSyntax, `formatVersion has invalid syntax: ${source}`);
  return [values[0], values[1], values[2]];
}

/** The Morphir IR format majors this backend reads. */
export type IrFormat = 3 | 4;

/**
 * Check that `ir` is an object whose `formatVersion` is 3 or "3.0.0" (morphir-elm), or 4 or
 * "4.0.0" (the v4 draft the Rust reference tooling writes), and return the major.
 * @throws {IrReadError} `missing_format_version`, `invalid_format_version_type`,
 * `invalid_format_version_syntax`, `format_version_out_of_range`,
 * `unsupported_format_version_major` or `unsupported_format_version_revision`.
 */
export function readFormatVersion(ir: unknown): IrFormat {
  if (typeof ir !== 'object' || ir === null || Array.isArray(ir) || !('formatVersion' in ir)) {
    throw versionError(AVRO_CODES.missingFormatVersion, 'Morphir IR root is missing formatVersion; pass a Morphir IR JSON document');
  }
  const version = (ir as { formatVersion: unknown }).formatVersion;
  let release: [number, number, number];
  if (typeof version === 'number') {
    if (!Number.isInteger(version) || version < 0) {
      throw versionError(AVRO_CODES.invalidFormatVersionType, `formatVersion has invalid scalar type: ${JSON.stringify(version)}`);
    }
    if (version > U32_MAX) throw versionError(AVRO_CODES.formatVersionOutOfRange, `formatVersion is outside the unsigned 32-bit range: ${version}`);
    if (version === 0) throw versionError(AVRO_CODES.invalidFormatVersionSyntax, 'formatVersion has invalid syntax: 0');
    release = [version, 0, 0];
  } else if (typeof version === 'string') {
    release = parseRelease(version);
  } else {
    throw versionError(AVRO_CODES.invalidFormatVersionType, `formatVersion has invalid scalar type: ${JSON.stringify(version) ?? typeof version}`);
  }
  const [major, minor, patch] = release;
  if ((major === 3 || major === 4) && minor === 0 && patch === 0) return major as IrFormat;
  if (major === 3 || major === 4) {
    throw versionError(AVRO_CODES.unsupportedFormatVersionRevision, `unsupported Morphir IR format revision: ${major}.${minor}.${patch}`);
  }
  throw versionError(
    AVRO_CODES.unsupportedFormatVersionMajor,
    `unsupported Morphir IR format major: ${major}; this backend reads formatVersion 3 (morphir-elm output) and 4`,
  );
}

/**
 * Flatten curried outputs into synthetic `argN` inputs and classify the value: a value with no
 * inputs is a constant, anything else a function.
 */
export function normalizeSignature(
  declared: readonly NamedType[],
  output: TypeExpr,
): Pick<ValueSpecification, 'inputs' | 'output' | 'valueKind'> {
  const inputs = [...declared];
  let current = output;
  let next = 1;
  while (current.kind === 'function') {
    while (inputs.some((input) => input.name === `arg${next}`)) next++;
    inputs.push({ name: `arg${next}`, tpe: current.input });
    next++;
    current = current.output;
  }
  return { inputs, output: current, valueKind: inputs.length === 0 ? 'constant' : 'function' };
}
