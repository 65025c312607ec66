/**
 * Applies the engine's edits ({@link QuickjsPatch}) to QuickJS's sources. Each anchor must match
 * exactly once and a replaced region must hash as pinned, or the build stops with an error naming
 * the edit: a quickjs-ng upgrade that moves or changes the text an edit relies on is found at
 * once, never built without the edit.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import type { QuickjsAnchor, QuickjsPatch } from './types.ts';

/** How many lines after `near` an anchor's line may be. */
const NEAR_LINES = 60;

/** The first 16 hex digits of the sha256 of `lines`, each ending in "\n" (an anchor's `sha256`). */
export function regionHash(lines: readonly string[]): string {
  return createHash('sha256').update(lines.map((l) => `${l}\n`).join('')).digest('hex').slice(0, 16);
}

/** Where an anchor matched: lines [start, end) of the file. */
export interface AnchorMatch {
  start: number;
  end: number;
}

const same = (line: string, want: string): boolean => line.trim() === want.trim();

/** The indexes of the lines that read `want`. */
function linesReading(lines: readonly string[], want: string, test = same): number[] {
  const found: number[] = [];
  for (let i = 0; i < lines.length; i++) if (test(lines[i]!, want)) found.push(i);
  return found;
}

/**
 * Finds `at` in `lines`, or returns why it does not match (an anchor that matches twice or not at
 * all, a region whose text changed).
 */
export function findAnchor(lines: readonly string[], at: QuickjsAnchor): AnchorMatch | string {
  const near = (want: string, nearLine: string | undefined): number | string => {
    if (nearLine === undefined) {
      const all = linesReading(lines, want);
      return all.length === 1 ? all[0]! : `the line '${want.trim()}' occurs ${all.length} times, not once`;
    }
    const base = linesReading(lines, nearLine);
    if (base.length !== 1) return `the line '${nearLine.trim()}' occurs ${base.length} times, not once`;
    for (let i = base[0]! + 1; i < lines.length && i <= base[0]! + NEAR_LINES; i++) if (same(lines[i]!, want)) return i;
    return `no line '${want.trim()}' within ${NEAR_LINES} lines after '${nearLine.trim()}'`;
  };
  if ('fn' in at) {
    const starts = linesReading(lines, at.fn, (l, w) => l.startsWith(w));
    if (starts.length !== 1) return `${starts.length} lines start with '${at.fn}', not one`;
    const start = starts[0]!;
    const close = lines.indexOf('}', start + 1);
    if (close < 0) return `the function '${at.fn}' has no closing '}' line`;
    const hash = regionHash(lines.slice(start, close + 1));
    return hash === at.sha256 ? { start, end: close + 1 } : `the function '${at.fn}' changed (its text hashes to ${hash}, the edit expects ${at.sha256})`;
  }
  if ('from' in at) {
    const start = near(at.from, at.near);
    if (typeof start === 'string') return start;
    let end = start + 1;
    while (end < lines.length && !same(lines[end]!, at.to)) end++;
    if (end === lines.length) return `no line '${at.to.trim()}' after '${at.from.trim()}'`;
    const hash = regionHash(lines.slice(start, end + 1));
    return hash === at.sha256 ? { start, end: end + 1 } : `the lines from '${at.from.trim()}' to '${at.to.trim()}' changed (they hash to ${hash}, the edit expects ${at.sha256})`;
  }
  const line = near(at.line, at.near);
  return typeof line === 'string' ? line : { start: line, end: line + 1 };
}

/** Returns `source` with `patch` applied, or throws the build error naming it. */
export function applyPatch(source: string, patch: QuickjsPatch): string {
  const lines = source.split('\n');
  const match = findAnchor(lines, patch.at);
  if (typeof match === 'string') {
    throw new MepError(
      LocalErrorCode.Build,
      `cannot apply the engine's edit to ${patch.file} (${patch.why.split(/[:.]/)[0]}): ${match}. The QuickJS sources changed; update QUICKJS_PATCHES in build/engine/patches/.`,
      { data: { file: patch.file, anchor: patch.at } },
    );
  }
  const text = patch.text.replace(/\n$/, '').split('\n');
  const { start, end } = match;
  const next =
    patch.op === 'before' ? [...lines.slice(0, start), ...text, ...lines.slice(start)]
    : patch.op === 'after' ? [...lines.slice(0, end), ...text, ...lines.slice(end)]
    : [...lines.slice(0, start), ...text, ...lines.slice(end)];
  return next.join('\n');
}

/** Applies `patches` in order to the files in `dir`, or throws a build error naming the first that no longer fits. */
export function applyQuickjsPatches(dir: string, patches: readonly QuickjsPatch[]): void {
  const files = new Map<string, string>();
  for (const patch of patches) {
    const text = files.get(patch.file) ?? readFileSync(join(dir, patch.file), 'utf8');
    files.set(patch.file, applyPatch(text, patch));
  }
  for (const [file, text] of files) writeFileSync(join(dir, file), text);
}
