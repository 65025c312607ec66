/**
 * Renders MEP diagnostics the way a compiler does: `severity[code]: message`, then
 * `--> file:line:col` and the source line with a caret when the location is a readable local file.
 * Lines and characters are zero-based on the wire (MEP 0.1, Diagnostics) and one-based on screen.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../protocol/index.ts';

function localPath(uri: string): string | undefined {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function sourceLine(path: string, line: number, cache: Map<string, string[] | null>): string | undefined {
  if (!cache.has(path)) {
    try {
      cache.set(path, readFileSync(path, 'utf8').split(/\r?\n/));
    } catch {
      cache.set(path, null);
    }
  }
  return cache.get(path)?.[line];
}

/** The lines that show one diagnostic. */
export function renderDiagnostic(d: Diagnostic, cache: Map<string, string[] | null> = new Map()): string[] {
  const head = `${d.severity}${d.code ? `[${d.code}]` : ''}: ${d.message}`;
  const location = d.location;
  if (!location) return [head];
  const { start, end } = location.range;
  const path = localPath(location.uri);
  // A location that is not a text file (e.g. `morphir-fqname:…`) with an empty range names a
  // thing, not a position: show the URI alone.
  const isPoint = start.line === 0 && start.character === 0 && end.line === 0 && end.character === 0;
  const where = !path && isPoint ? location.uri : `${path ?? location.uri}:${start.line + 1}:${start.character + 1}`;
  const lines = [head, `  --> ${where}`];
  const text = path ? sourceLine(path, start.line, cache) : undefined;
  if (text !== undefined) {
    const gutter = String(start.line + 1);
    const width = end.line === start.line ? Math.max(1, end.character - start.character) : Math.max(1, text.length - start.character);
    lines.push(`${' '.repeat(gutter.length)} |`);
    lines.push(`${gutter} | ${text}`);
    lines.push(`${' '.repeat(gutter.length)} | ${' '.repeat(start.character)}${'^'.repeat(width)}`);
  }
  return lines;
}

/** All diagnostics, errors first then warnings, info and hints, with a closing count. */
export function renderDiagnostics(diagnostics: readonly Diagnostic[]): string[] {
  const order = { error: 0, warning: 1, info: 2, hint: 3 } as const;
  const sorted = [...diagnostics].sort((a, b) => order[a.severity] - order[b.severity]);
  const cache = new Map<string, string[] | null>();
  const out = sorted.flatMap((d) => [...renderDiagnostic(d, cache), '']);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (diagnostics.length > 0) out.push(`${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  return out;
}
