/**
 * Avro backend diagnostics: the stable AVRO001–006 codes, the AVRO007 layout hint, the IR-reading codes, and their
 * conversion to MEP 0.1 diagnostics located at `morphir-fqname:<fqname>` URIs.
 */

/** Every diagnostic code this backend emits. */
export const AVRO_CODES = {
  unsupportedType: 'AVRO001',
  unboundTypeParameter: 'AVRO002',
  nameCollision: 'AVRO003',
  invalidOption: 'AVRO004',
  unsafeRecursion: 'AVRO005',
  missingLinkedDependency: 'AVRO006',
  /** Info: the output is far larger than the `shared` layout of the same model would be. */
  largeLayout: 'AVRO007',
  missingFormatVersion: 'missing_format_version',
  invalidFormatVersionType: 'invalid_format_version_type',
  invalidFormatVersionSyntax: 'invalid_format_version_syntax',
  formatVersionOutOfRange: 'format_version_out_of_range',
  unsupportedFormatVersionMajor: 'unsupported_format_version_major',
  unsupportedFormatVersionRevision: 'unsupported_format_version_revision',
  invalidIr: 'invalid_ir',
} as const;

/** One of the codes in {@link AVRO_CODES}. */
export type AvroCode = (typeof AVRO_CODES)[keyof typeof AVRO_CODES];

/** A zero-based position (MEP 0.1). */
export type Position = {
  line: number;
  character: number;
};

/** A MEP 0.1 diagnostic. */
// Object type aliases (not interfaces) so results assign to the PDK's passthrough schemas.
export type Diagnostic = {
  severity: 'error' | 'warning' | 'info' | 'hint';
  code?: string;
  message: string;
  location?: { uri: string; range: { start: Position; end: Position } };
  data?: unknown;
};

/** A backend diagnostic before a severity is chosen: code, message and the FQName it is about. */
export interface AvroDiagnostic {
  readonly code: AvroCode;
  readonly message: string;
  readonly source?: string;
}

/** The error thrown inside projection and caught at a declaration, message or request boundary. */
export class AvroError extends Error {
  readonly diagnostic: AvroDiagnostic;

  constructor(diagnostic: AvroDiagnostic) {
    super(diagnostic.message);
    this.name = 'AvroError';
    this.diagnostic = diagnostic;
  }

  /** Attach `source` unless a more precise one is already set. */
  withSource(source: string): AvroError {
    return this.diagnostic.source === undefined ? new AvroError({ ...this.diagnostic, source }) : this;
  }

  /** The diagnostic as data. */
  toJSON(): AvroDiagnostic {
    return this.diagnostic;
  }
}

/** AVRO001: a Morphir type with no Avro representation. */
export const unsupportedType = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.unsupportedType, message: `unsupported Morphir type: ${what}`, source });
/** AVRO002: a type parameter left unbound at a root. */
export const unboundTypeParameter = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.unboundTypeParameter, message: `unbound type parameter: ${what}`, source });
/** AVRO003: two Morphir sources claim one Avro name. */
export const nameCollision = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.nameCollision, message: `Avro name collision: ${what}`, source });
/** AVRO004: an invalid backend option. */
export const invalidOption = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.invalidOption, message: `invalid backend option: ${what}`, source });
/** AVRO005: recursion Avro cannot represent. */
export const unsafeRecursion = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.unsafeRecursion, message: `unsafe or unrepresentable recursion: ${what}`, source });
/** AVRO006: a linked dependency type that the IR does not declare. */
export const missingLinkedDependency = (what: string, source?: string): AvroError =>
  new AvroError({ code: AVRO_CODES.missingLinkedDependency, message: `missing linked dependency: ${what}`, source });

const ZERO_RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Convert a backend diagnostic to MEP 0.1, located at `morphir-fqname:<source>` when known. */
export function toMepDiagnostic(diagnostic: AvroDiagnostic, severity: Diagnostic['severity']): Diagnostic {
  const out: Diagnostic = { severity, code: diagnostic.code, message: diagnostic.message };
  if (diagnostic.source !== undefined) {
    out.location = {
      uri: `morphir-fqname:${diagnostic.source}`,
      range: { start: { ...ZERO_RANGE.start }, end: { ...ZERO_RANGE.end } },
    };
  }
  return out;
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Sort by source, code, then message, and drop exact duplicates (deterministic output). */
export function sortDiagnostics(diagnostics: readonly AvroDiagnostic[]): AvroDiagnostic[] {
  const sorted = [...diagnostics].sort(
    (a, b) => compare(a.source ?? '', b.source ?? '') || compare(a.code, b.code) || compare(a.message, b.message),
  );
  return sorted.filter(
    (d, i) => i === 0 || !(d.source === sorted[i - 1].source && d.code === sorted[i - 1].code && d.message === sorted[i - 1].message),
  );
}
