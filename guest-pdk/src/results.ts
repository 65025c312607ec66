/**
 * Helpers for building results: artifacts with checked relative paths (text or base64 binary)
 * and diagnostics with zero-based ranges (MEP 0.1, Backend generation and Diagnostics).
 */
import type { Artifact, Diagnostic, DiagnosticSeverity } from '../../host/src/protocol/index.ts';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 of `bytes` (no Buffer or btoa: the wasm guest has neither). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i] << 16;
    out += `${B64[(n >> 18) & 63]}${B64[(n >> 12) & 63]}==`;
  } else if (rest === 2) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += `${B64[(n >> 18) & 63]}${B64[(n >> 12) & 63]}${B64[(n >> 6) & 63]}=`;
  }
  return out;
}

/** Throws a TypeError unless `path` is relative, uses `/`, and has no `.`/`..`/empty segment. */
export function checkRelativePath(path: string): void {
  const bad =
    path.length === 0 ||
    path.startsWith('/') ||
    path.includes('\\') ||
    path.includes('\0') ||
    /^[A-Za-z]:/.test(path) ||
    path.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (bad) throw new TypeError(`Artifact path ${JSON.stringify(path)} must be relative, use "/" separators and have no empty, "." or ".." segment.`);
}

/** A UTF-8 text artifact at a relative path. */
export function textArtifact(path: string, content: string): Artifact {
  checkRelativePath(path);
  return { path, content, binary: false };
}

/** A binary artifact at a relative path, carried as base64. */
export function binaryArtifact(path: string, bytes: Uint8Array): Artifact {
  checkRelativePath(path);
  return { path, content: toBase64(bytes), binary: true };
}

/** Where a diagnostic points: a URI and a zero-based range (end exclusive). */
export interface DiagnosticAt {
  uri: string;
  /** Zero-based start line and character. */
  line?: number;
  character?: number;
  /** Zero-based end; defaults to the start. */
  endLine?: number;
  endCharacter?: number;
}

/** A diagnostic. `code` should be stable: hosts filter and link on it. */
export function diagnostic(severity: DiagnosticSeverity, message: string, options: { code?: string; at?: DiagnosticAt; data?: unknown } = {}): Diagnostic {
  const d: Diagnostic = { severity, message };
  if (options.code !== undefined) d.code = options.code;
  if (options.at) {
    const { uri, line = 0, character = 0 } = options.at;
    const start = { line, character };
    const end = { line: options.at.endLine ?? line, character: options.at.endCharacter ?? character };
    d.location = { uri, range: { start, end } };
  }
  if (options.data !== undefined) d.data = options.data;
  return d;
}
