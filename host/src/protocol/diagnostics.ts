/**
 * Positions, ranges, locations and diagnostics.
 *
 * MEP 0.1, Diagnostics and Compilation failure: lines and characters are zero-based, a range has
 * an inclusive start and an exclusive end (LSP positions), and a source-language failure travels
 * as a diagnostic inside a result, never as a JSON-RPC error.
 */
import * as z from 'zod';

/** A zero-based position in a document: `line` and `character` are integers ≥ 0. */
export const Position = z.looseObject({
  line: z.int().min(0),
  character: z.int().min(0),
});
/** A zero-based position in a document. */
export type Position = z.infer<typeof Position>;

function isBefore(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** A zero-based range, inclusive `start`, exclusive `end`; `end` never precedes `start`. */
export const Range = z
  .looseObject({ start: Position, end: Position })
  .refine((r) => !isBefore(r.end, r.start), { message: 'range end precedes its start', path: ['end'] });
/** A zero-based range. */
export type Range = z.infer<typeof Range>;

/** A document URI and a range inside it. */
export const Location = z.looseObject({
  uri: z.string().min(1),
  range: Range,
});
/** A document URI and a range inside it. */
export type Location = z.infer<typeof Location>;

/** The four diagnostic severities, strongest first. */
export const DiagnosticSeverity = z.enum(['error', 'warning', 'info', 'hint']);
/** One of `error`, `warning`, `info`, `hint`. */
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeverity>;

/**
 * One entry of `Diagnostic.related`: the spec says "other locations", so a bare
 * {@link Location} is read; the LSP spelling `{ location, message }` is read as well.
 */
export const RelatedInformation = z.union([
  Location,
  z.looseObject({ location: Location, message: z.string() }),
]);
/** One entry of `Diagnostic.related`. */
export type RelatedInformation = z.infer<typeof RelatedInformation>;

/**
 * A structured diagnostic: `severity` and `message` required; `code` stable and extension
 * specific; `location` zero-based; `data` owned by the extension and carried unchanged.
 */
export const Diagnostic = z.looseObject({
  severity: DiagnosticSeverity,
  code: z.string().optional(),
  message: z.string(),
  location: Location.optional(),
  related: z.array(RelatedInformation).optional(),
  data: z.unknown().optional(),
});
/** A structured diagnostic. */
export type Diagnostic = z.infer<typeof Diagnostic>;
