/**
 * Parsed TypeScript source files kept for the life of the process, so that a second type check
 * (a rebuild, the bench, a watch loop, a test run) parses only the files that changed. An entry
 * is reused while the file's modification time and size are unchanged.
 */
import { statSync } from 'node:fs';
import type ts from 'typescript';

interface Entry {
  stamp: string;
  file: ts.SourceFile;
}

const entries = new Map<string, Entry>();

function stampOf(path: string): string | null {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return null;
  }
}

function keyOf(path: string, version: ts.ScriptTarget | ts.CreateSourceFileOptions): string {
  const options = typeof version === 'object' ? version : { languageVersion: version, impliedNodeFormat: undefined };
  return `${options.languageVersion}|${options.impliedNodeFormat ?? ''}|${path}`;
}

/**
 * Returns the cached parse of `path`, or parses it with `parse` (null: nothing to cache).
 *
 * @param stamp identifies the file's content; default: its mtime and size on disk
 */
export function cachedSourceFile(
  path: string,
  version: ts.ScriptTarget | ts.CreateSourceFileOptions,
  parse: () => ts.SourceFile | undefined,
  stamp: string | null = stampOf(path),
): ts.SourceFile | undefined {
  if (stamp === null) return parse();
  const key = keyOf(path, version);
  const hit = entries.get(key);
  if (hit?.stamp === stamp) return hit.file;
  const file = parse();
  if (file) entries.set(key, { stamp, file });
  else entries.delete(key);
  return file;
}
