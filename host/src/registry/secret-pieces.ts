/**
 * How one secret value is found in text that is not exactly the value: each line of a
 * multi-line secret (a PEM key written to stderr comes out one log line at a time, or joined as
 * `a | b | c` in a crash report), the value broken across lines inside one text (wrapped at 64
 * columns, raw or JSON-escaped `\n`), and the parts of a value cut across separate lines (a
 * process's stderr cut at 16 K characters, a guest that logs a value in two calls). Redaction
 * guards against accidental disclosure: an extension that was given a secret and means to leak
 * it can always encode it first.
 */

/** Lines of a multi-line secret, and parts of one cut across lines, shorter than this are not redacted alone. */
export const MIN_SECRET_PIECE = 8;
/** The longest secret also looked for broken across lines (the pattern grows with the value). */
const MAX_BROKEN_SECRET = 8 * 1024;
/** A line break inside one text: raw, or escaped inside a JSON string. */
const BREAK = String.raw`(?:\r?\n|\\r\\n|\\n)*`;
/** Where one printed line ends and the next begins, for the parts cut across lines. */
const SEPARATOR = / \| |\r?\n|\\r\\n|\\n/;

/** KMP failure function of `p`: for each prefix, the longest proper prefix that is also its suffix. */
function failureOf(p: string): Int32Array {
  const f = new Int32Array(p.length);
  for (let i = 1, k = 0; i < p.length; i++) {
    while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = f[k - 1] as number;
    if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
    f[i] = k;
  }
  return f;
}

/** The length of the longest suffix of `text` that is a prefix of `p` (KMP over at most |p| characters). */
function overlap(text: string, p: string, f: Int32Array): number {
  let q = 0;
  for (let i = Math.max(0, text.length - p.length); i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (q > 0 && (q === p.length || p.charCodeAt(q) !== c)) q = f[q - 1] as number;
    if (p.charCodeAt(q) === c) q++;
  }
  return q;
}

const reverse = (s: string): string => s.split('').reverse().join('');

/** One form of a secret (as printed, or JSON-escaped) with line breaks taken out, matched at the ends of lines. */
export class Canonical {
  private readonly failure: Int32Array;
  private readonly reversed: string;
  private readonly reversedFailure: Int32Array;
  constructor(readonly text: string) {
    this.failure = failureOf(text);
    this.reversed = reverse(text);
    this.reversedFailure = failureOf(this.reversed);
  }

  /** `line` with a part of the secret at either end, or all of it inside, replaced. */
  scrubEdges(line: string, replacement: string): string {
    if (line.length < MIN_SECRET_PIECE) return line;
    const trimmed = line.trim();
    if (trimmed.length >= MIN_SECRET_PIECE && this.text.includes(trimmed)) return line.replace(trimmed, replacement);
    let out = line;
    // Cheap refusal first: a part at an end starts or ends with MIN characters of the secret.
    if (this.text.includes(out.slice(-MIN_SECRET_PIECE))) {
      const tail = overlap(out, this.text, this.failure);
      if (tail >= MIN_SECRET_PIECE) out = out.slice(0, -tail) + replacement;
    }
    if (this.text.includes(out.slice(0, MIN_SECRET_PIECE))) {
      const head = overlap(reverse(out.slice(0, this.text.length)), this.reversed, this.reversedFailure);
      if (head >= MIN_SECRET_PIECE) out = replacement + out.slice(head);
    }
    return out;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** What is looked for of one secret value. */
export interface SecretPieces {
  /** Exact strings replaced wherever they occur: the value, its lines, each raw and JSON-escaped. */
  exact: string[];
  /** The value with line breaks anywhere in it (undefined for a short or a very long value). */
  broken: RegExp | undefined;
  /** The value without line breaks, raw and JSON-escaped, for the parts at the ends of lines. */
  canonical: Canonical[];
}

/** The pieces of `value` (non-empty). */
export function secretPieces(value: string): SecretPieces {
  const escaped = (s: string): string => JSON.stringify(s).slice(1, -1);
  const lines = value.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length >= MIN_SECRET_PIECE && line !== value);
  const exact = [...new Set([value, escaped(value), ...lines, ...lines.map(escaped)])];
  const flat = value.replace(/[\r\n]/g, '');
  const forms = [...new Set([flat, escaped(flat)])].filter((form) => form.length >= MIN_SECRET_PIECE);
  const broken = flat.length >= MIN_SECRET_PIECE && flat.length <= MAX_BROKEN_SECRET ? new RegExp(forms.map((form) => Array.from(form, escapeRegExp).join(BREAK)).join('|'), 'g') : undefined;
  return { exact, broken, canonical: forms.map((form) => new Canonical(form)) };
}

/** True when `text` may hold a line break between two parts of a secret. */
export function hasBreak(text: string): boolean {
  return SEPARATOR.test(text);
}

/** `text` with the parts of secrets at the ends of each of its lines replaced. */
export function scrubLineEdges(text: string, canonical: readonly Canonical[], replacement: string): string {
  if (canonical.length === 0) return text;
  const parts = text.split(new RegExp(`(${SEPARATOR.source})`));
  for (let i = 0; i < parts.length; i += 2) {
    for (const form of canonical) parts[i] = form.scrubEdges(parts[i] as string, replacement);
  }
  return parts.join('');
}
