/**
 * Renders MEP diagnostics the way a compiler does: `severity[code]: message`, then
 * `--> file:line:col` and the source line with a caret when the source is known (the text that was
 * compiled, or a regular file below the working directory, not under a dot-name). Lines and characters are zero-based on the wire (MEP 0.1,
 * Diagnostics) and one-based on screen; a file below the working directory is shown relative to it.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../protocol/index.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { isWithin } from '../files/path-within.ts';
import { readRegularFileSync } from '../files/regular-file.ts';

/** Options of {@link renderDiagnostics}. */
export interface RenderOptions {
  /** Files below this folder are shown relative to it, and only they are read for a line (default the process working directory). */
  cwd?: string;
  /** The text of each compiled document by URI, shown instead of reading the file again. */
  sources?: ReadonlyMap<string, string>;
}

/** The source lines of each URI (or path), read once. */
type LineCache = Map<string, string[] | null>;

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

/**
 * Whether a line of the file at `path` may be shown: the location comes from an extension (a
 * sandboxed wasm guest included), so only a file whose real path lies below the working
 * directory, with no dot-name on the way (`.env`, `.git/config`), is read. Anything else (a key in
 * `~/.ssh`, `/proc/self/environ`, a link out of the folder) is named and not read, so an extension
 * cannot have `mep` print a line of a file it was never given into a terminal or a CI log.
 */
function mayShow(path: string, cwd: string): boolean {
  try {
    const root = realpathSync(cwd);
    const real = realpathSync(path);
    return real !== root && isWithin(real, root) && !relative(root, real).split(sep).some((segment) => segment.startsWith('.'));
  } catch {
    return false;
  }
}

function sourceLine(uri: string, path: string | undefined, line: number, cache: LineCache, options: RenderOptions): string | undefined {
  if (!cache.has(uri)) {
    const text = options.sources?.get(uri);
    if (text !== undefined) cache.set(uri, text.split(/\r?\n/));
    else if (path === undefined || !mayShow(path, options.cwd ?? process.cwd())) cache.set(uri, null);
    else {
      try {
        // The location comes from the extension: a FIFO or a device there is refused, never opened.
        cache.set(uri, readRegularFileSync(path, { what: 'the source file', maxBytes: HOST_FILE_LIMITS.shownSourceBytes }).toString('utf8').split(/\r?\n/));
      } catch {
        cache.set(uri, null);
      }
    }
  }
  return cache.get(uri)?.[line];
}

function shown(path: string, cwd: string | undefined): string {
  if (cwd === undefined) return path;
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** The lines that show one diagnostic. */
export function renderDiagnostic(d: Diagnostic, cache: LineCache = new Map(), options: RenderOptions = {}): string[] {
  const head = `${d.severity}${d.code ? `[${d.code}]` : ''}: ${d.message}`;
  const location = d.location;
  if (!location) return [head];
  const { start, end } = location.range;
  const path = localPath(location.uri);
  // A location that is not a text file (e.g. `morphir-fqname:…`) with an empty range names a
  // thing, not a position: show the URI alone.
  const isPoint = start.line === 0 && start.character === 0 && end.line === 0 && end.character === 0;
  const where = !path && isPoint ? location.uri : `${path ? shown(path, options.cwd) : location.uri}:${start.line + 1}:${start.character + 1}`;
  const lines = [head, `  --> ${where}`];
  const text = path || options.sources?.has(location.uri) ? sourceLine(location.uri, path, start.line, cache, options) : undefined;
  if (text !== undefined) {
    const gutter = String(start.line + 1);
    // The caret stays within the line shown: a range the extension put far past it (2^50) would
    // otherwise make a string longer than any the host can build.
    const from = Math.min(start.character, text.length);
    const to = end.line === start.line ? Math.min(end.character, text.length) : text.length;
    lines.push(`${' '.repeat(gutter.length)} |`);
    lines.push(`${gutter} | ${text}`);
    lines.push(`${' '.repeat(gutter.length)} | ${' '.repeat(from)}${'^'.repeat(Math.max(1, to - from))}`);
  }
  return lines;
}

/** All diagnostics, errors first then warnings, info and hints, with a closing count. */
export function renderDiagnostics(diagnostics: readonly Diagnostic[], options: RenderOptions = {}): string[] {
  const order = { error: 0, warning: 1, info: 2, hint: 3 } as const;
  const sorted = [...diagnostics].sort((a, b) => order[a.severity] - order[b.severity]);
  const cache: LineCache = new Map();
  const out = sorted.flatMap((d) => [...renderDiagnostic(d, cache, options), '']);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (diagnostics.length > 0) out.push(`${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`);
  return out;
}
