/**
 * The naming validator as a pure function: Morphir IR + options → MEP diagnostics located at
 * `morphir-fqname:` URIs. Invalid options and unreadable IR are diagnostics too, never throws.
 */
import { IrReadError, readIr } from '../../avro/src/index.ts';
import { checkNaming } from './rules.ts';
import type { Finding, NamingOptions } from './rules.ts';

/** An MEP 0.1 diagnostic as this validator emits it. */
export type NamingDiagnostic = {
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  location?: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } };
  data?: { fqname: string; member?: string };
};

const ZERO = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function parseOptions(raw: Record<string, unknown>): NamingOptions | string {
  for (const key of Object.keys(raw)) {
    if (key !== 'forbiddenWords' && key !== 'maxWords') return `Unknown option '${key}'; the options are forbiddenWords (array of words) and maxWords (integer).`;
  }
  const forbidden = raw.forbiddenWords ?? [];
  if (!Array.isArray(forbidden) || !forbidden.every((w) => typeof w === 'string' && /^[a-z0-9]+$/.test(w))) {
    return 'Option forbiddenWords must be an array of lowercase words.';
  }
  const maxWords = raw.maxWords ?? 5;
  if (typeof maxWords !== 'number' || !Number.isInteger(maxWords) || maxWords < 1) return 'Option maxWords must be a positive integer.';
  return { forbiddenWords: forbidden as string[], maxWords };
}

function toDiagnostic(f: Finding): NamingDiagnostic {
  const d: NamingDiagnostic = { severity: f.severity, code: f.code, message: `${f.message} (${f.fqname}${f.member ? `, ${f.member}` : ''})`, location: { uri: `morphir-fqname:${f.fqname}`, range: ZERO }, data: { fqname: f.fqname } };
  if (f.member && d.data) d.data.member = f.member;
  return d;
}

/** Validate the naming of every public type, constructor, field, value and input. */
export function validateNaming(ir: unknown, options: Record<string, unknown> = {}): { success: boolean; diagnostics: NamingDiagnostic[] } {
  const parsed = parseOptions(options);
  if (typeof parsed === 'string') return { success: false, diagnostics: [{ severity: 'error', code: 'NAMING000', message: parsed }] };
  let pkg;
  try {
    pkg = readIr(ir);
  } catch (error) {
    if (error instanceof IrReadError) return { success: false, diagnostics: [{ severity: 'error', code: error.code, message: error.message }] };
    throw error;
  }
  const diagnostics = checkNaming(pkg, parsed).map(toDiagnostic);
  return { success: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
}
