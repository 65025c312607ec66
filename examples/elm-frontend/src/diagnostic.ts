/** One way to make the frontend's diagnostics: a stable `elm.*` code and, when known, a location. */
import type { AuthorDiagnostic } from '../../../guest-pdk/src/index.ts';
import type { Range } from './text-positions.ts';

/** The codes this frontend reports (stable: hosts filter and link on them). */
export const ELM_CODES = {
  parse: 'elm.parse',
  type: 'elm.type',
  resolve: 'elm.resolve',
  unsupported: 'elm.unsupported',
  moduleCycle: 'elm.module-cycle',
  typeCycle: 'elm.type-cycle',
  valueCycle: 'elm.value-cycle',
  duplicate: 'elm.duplicate',
  duplicateModule: 'elm.duplicate-module',
  invalidModuleName: 'elm.invalid-module-name',
  outsidePackage: 'elm.module-outside-package',
  unknownExposedModule: 'elm.unknown-exposed-module',
  implicitlyPublic: 'elm.module-implicitly-public',
  unreachable: 'elm.module-unreachable',
  v4Bodies: 'elm.ir-v4-value-bodies',
  compiler: 'elm.compiler',
} as const;

/** A diagnostic at `range` of `uri` (the whole document's start when no range is known). */
export function elmDiagnostic(severity: AuthorDiagnostic['severity'], code: string, message: string, uri?: string, range?: Range, data?: unknown): AuthorDiagnostic {
  const d: AuthorDiagnostic = { severity, code, message };
  if (uri !== undefined) d.location = { uri, range: range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
  if (data !== undefined) d.data = data;
  return d;
}
