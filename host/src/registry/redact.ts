/**
 * Keeps resolved secret values out of everything a user or a file sees: logs, diagnostics,
 * errors and transcripts (MEP 0.1, Security and permissions). Values are registered when they
 * are resolved and replaced wherever they occur in text, also across line breaks: each line of a
 * multi-line value, the value broken across lines, and its parts at the ends of lines that a
 * stream cut apart (secret-pieces.ts).
 */
import { JsonText } from '../protocol/json-text.ts';
import { hasBreak, scrubLineEdges, secretPieces, type SecretPieces } from './secret-pieces.ts';

/** The replacement written where a secret value was. */
export const REDACTED = '[redacted secret]';

/**
 * Sets an own, enumerable member, also one named `__proto__` (which JSON.parse makes an own
 * member and a plain assignment would turn into the prototype).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Collects secret values and scrubs them from text and JSON values. */
export interface Redactor {
  /** Remember a resolved value (empty strings are ignored). */
  add(value: string): void;
  /** `text` with every remembered value replaced by {@link REDACTED}. */
  scrub(text: string): string;
  /** A deep copy of a JSON value with every string scrubbed (keys too). */
  scrubValue<T>(value: T): T;
  /** True when at least one value is remembered. */
  readonly active: boolean;
}

/**
 * Creates an empty redactor.
 *
 * @example
 * const redactor = createRedactor();
 * redactor.add(token);
 * io.err(redactor.scrub(line));
 */
export function createRedactor(): Redactor {
  const values = new Map<string, SecretPieces>();
  // Longest first, so a value containing another is replaced whole; kept sorted as values arrive.
  let ordered: string[] = [];
  let broken: RegExp[] = [];
  let canonical: SecretPieces['canonical'] = [];
  function scrub(text: string): string {
    if (values.size === 0) return text;
    let out = text;
    for (const value of ordered) if (out.includes(value)) out = out.split(value).join(REDACTED);
    if (broken.length > 0 && hasBreak(out)) for (const pattern of broken) out = out.replace(pattern, REDACTED);
    // Every text is also a line of some stream: a part of a value at one of its ends may be the
    // rest of a value whose other part ended the line before.
    return scrubLineEdges(out, canonical, REDACTED);
  }
  // Plain loops, one stack frame per level: a message may nest as deep as the host reads
  // (protocol/json-depth.ts), and map/fromEntries took four frames a level.
  function scrubValue(value: unknown): unknown {
    if (values.size === 0) return value;
    if (typeof value === 'string') return scrub(value);
    if (value instanceof JsonText) return scrubValue(value.value());
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) {
      const out: unknown[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) out[i] = scrubValue(value[i]);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) setOwn(out, scrub(key), scrubValue((value as Record<string, unknown>)[key]));
    return out;
  }
  return {
    add(value) {
      if (value === '' || values.has(value)) return;
      // The value and its lines, each also as it appears inside a JSON string (quotes,
      // backslashes and control characters escaped), so a line of JSON output is scrubbed as well.
      values.set(value, secretPieces(value));
      const all = [...values.values()];
      ordered = [...new Set(all.flatMap((p) => p.exact))].sort((a, b) => b.length - a.length);
      broken = all.flatMap((p) => (p.broken ? [p.broken] : []));
      canonical = all.flatMap((p) => p.canonical);
    },
    scrub,
    scrubValue: scrubValue as <T>(value: T) => T,
    get active() {
      return values.size > 0;
    },
  };
}
