/**
 * Reference models for the wire fuzz (test support), each written out rule by rule, apart from
 * the code it checks: how deeply a text nests (protocol/json-depth.ts), how a decoded message is
 * classified (rpc/message.ts), whether an artifact path is safe (artifacts/validate.ts) and
 * whether a set of paths collides (artifacts/path-set.ts).
 */
import { artifactPathKey } from '../../host/src/artifacts/path-set.ts';

/** Where `text` first opens nesting level `max + 1`, by a plain state machine; -1 when it never does. */
export function referenceExcessNesting(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth > max) return i;
    } else if (c === ']' || c === '}') depth--;
  }
  return -1;
}

/** A decimal number token as an integer and a power of ten (`-1.50e3` → [-150n, 1]). */
function exactDecimal(token: string): [bigint, number] {
  const [mantissa = '', exponent = '0'] = token.toLowerCase().split('e');
  const [whole = '', fraction = ''] = mantissa.split('.');
  return [BigInt(whole + fraction), Number(exponent) - fraction.length];
}

/** Whether two number tokens denote the same decimal, compared exactly. */
function sameDecimal(a: string, b: string): boolean {
  const [ma, ea] = exactDecimal(a);
  const [mb, eb] = exactDecimal(b);
  if (ma === 0n || mb === 0n) return ma === mb;
  const e = Math.min(ea, eb);
  return ma * 10n ** BigInt(ea - e) === mb * 10n ** BigInt(eb - e);
}

/**
 * The first number token of a valid JSON `text` that the double nearest it is not written back
 * as (json-numbers.ts): a plain state machine over strings and tokens; undefined when none.
 */
export function referenceUnheldNumber(text: string): string | undefined {
  let inString = false;
  let escaped = false;
  let token = '';
  for (const c of `${text} `) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (token !== '' ? '0123456789+-.eE'.includes(c) : '-0123456789'.includes(c)) token += c;
    else {
      if (token !== '') {
        const value = Number(token);
        if (!Number.isFinite(value) || !sameDecimal(token, String(value))) return token;
        token = '';
      }
      if (c === '"') inString = true;
    }
  }
  return undefined;
}

/** The classification of a decoded message, as rpc/message.ts's parseMessage reports it. */
export type Classified = { kind: 'request' | 'result'; id: string | number } | { kind: 'notification' } | { kind: 'error'; id: string | number | null } | { kind: 'invalid'; id: string | number | null; looksLike: string };

const isRequestId = (v: unknown): v is string | number => typeof v === 'string' || Number.isSafeInteger(v);
const isParams = (v: unknown) => v === undefined || v === null || typeof v === 'object';
const isErrorObject = (v: unknown): boolean => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const e = v as Record<string, unknown>;
  return Number.isSafeInteger(e.code) && typeof e.message === 'string';
};

/** JSON-RPC 2.0 as MEP 0.1 takes it: the rules of rpc/message.ts and protocol/envelope.ts, one by one. */
export function referenceClassify(m: Record<string, unknown>): Classified {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(m, key);
  const id = isRequestId(m.id) ? m.id : null;
  const v2 = m.jsonrpc === '2.0';
  const method = typeof m.method === 'string' && m.method.length > 0;
  if (has('method')) {
    if (has('result') || has('error')) return { kind: 'invalid', id, looksLike: 'request' };
    if (has('id')) return v2 && isRequestId(m.id) && method && isParams(m.params) ? { kind: 'request', id: m.id as string | number } : { kind: 'invalid', id, looksLike: 'request' };
    return v2 && method && isParams(m.params) ? { kind: 'notification' } : { kind: 'invalid', id, looksLike: 'unknown' };
  }
  if (has('result') && has('error')) return { kind: 'invalid', id, looksLike: 'response' };
  const responseId = isRequestId(m.id) || m.id === null;
  if (has('result')) return v2 && responseId && m.id !== null ? { kind: 'result', id: m.id as string | number } : { kind: 'invalid', id, looksLike: 'response' };
  if (has('error')) return v2 && responseId && isErrorObject(m.error) ? { kind: 'error', id } : { kind: 'invalid', id, looksLike: 'response' };
  return { kind: 'invalid', id, looksLike: 'unknown' };
}

const RESERVED = new Set(['con', 'prn', 'aux', 'nul', 'conin$', 'conout$']);

function portableSegment(segment: string): boolean {
  if (segment === '' || segment === '.' || segment === '..') return false;
  let stem = segment.includes('.') ? segment.slice(0, segment.indexOf('.')) : segment;
  while (stem.endsWith(' ')) stem = stem.slice(0, -1);
  const lower = stem.toLowerCase();
  if (RESERVED.has(lower)) return false;
  if (lower.length === 4 && (lower.startsWith('com') || lower.startsWith('lpt')) && '123456789¹²³'.includes(lower[3] as string)) return false;
  for (const c of segment) if (c.charCodeAt(0) < 0x20 || '<>:"|?*'.includes(c)) return false;
  if (segment.endsWith('.') || segment.endsWith(' ')) return false;
  if (isShortName(segment)) return false;
  for (const c of segment) if (BIDI.some(([from, to]) => c.charCodeAt(0) >= from && c.charCodeAt(0) <= to)) return false;
  // DEL, C1 controls, line and paragraph separators; a code unit of a surrogate pair only as a pair.
  for (const c of segment) if ((c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) || c === '\u2028' || c === '\u2029' || (c.length === 1 && c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff)) return false;
  if (['.git', '.mep'].includes(artifactPathKey(segment))) return false;
  return segment.length <= 255 && new TextEncoder().encode(segment).length <= 255;
}

/** Bidirectional controls, as ranges of code units. */
const BIDI: [number, number][] = [[0x61c, 0x61c], [0x200e, 0x200f], [0x202a, 0x202e], [0x2066, 0x2069]];

/** An NTFS 8.3 alias: a base of at most 8 characters ending in `~` and digits, then at most one extension of 1 to 3. */
function isShortName(segment: string): boolean {
  const dot = segment.indexOf('.');
  const base = dot < 0 ? segment : segment.slice(0, dot);
  const extension = dot < 0 ? undefined : segment.slice(dot + 1);
  if (extension !== undefined && (extension.length < 1 || extension.length > 3 || extension.includes('.'))) return false;
  const tilde = base.indexOf('~');
  if (tilde < 1 || base.length > 8 || base.lastIndexOf('~') !== tilde) return false;
  const digits = base.slice(tilde + 1);
  return digits.length >= 1 && [...digits].every((c) => c >= '0' && c <= '9');
}

/** Whether `path` is a safe relative artifact path: the rules of checkArtifactPath, one by one. */
export function referencePathSafe(path: string): boolean {
  if (path.length === 0 || path.length > 1024) return false;
  if (path.includes('\0') || path.includes('\\') || path.startsWith('/')) return false;
  if (path.length >= 2 && path[1] === ':' && /[A-Za-z]/.test(path[0] as string)) return false;
  return path.split('/').every(portableSegment);
}

/** Every prefix of `path` with its kind, as a collision check compares them. */
function prefixes(path: string): { spelling: string; key: string; kind: 'file' | 'directory' }[] {
  const segments = path.split('/');
  return segments.map((_, i) => {
    const spelling = segments.slice(0, i + 1).join('/');
    return { spelling, key: artifactPathKey(spelling), kind: i === segments.length - 1 ? 'file' : 'directory' };
  });
}

/** Whether `path` may join the accepted paths `before`, compared pair by pair. */
export function referenceNoCollision(before: readonly string[], path: string): boolean {
  const mine = prefixes(path);
  for (const other of before) {
    if (other === path) return false;
    for (const a of prefixes(other)) {
      for (const b of mine) {
        if (a.key !== b.key) continue;
        if (a.spelling !== b.spelling || a.kind !== b.kind) return false;
      }
    }
  }
  return true;
}
