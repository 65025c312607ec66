/**
 * The shape of the engine's edits to quickjs-ng (see {@link ./index.ts}). An edit names where it
 * applies by the smallest text that is unique there (one line, a function's first line) and, where
 * it replaces QuickJS's own text, by a hash of that text: the repository holds our C, never
 * QuickJS's. ./apply.ts fails the build when an anchor does not match exactly once.
 */

/** The C files of libquickjs (quickjs-libc.c is not used: the engine has no OS). */
export const QUICKJS_SOURCES = ['dtoa.c', 'libregexp.c', 'libunicode.c', 'quickjs.c'] as const;

/** A file of {@link QUICKJS_SOURCES}. */
export type QuickjsSource = (typeof QUICKJS_SOURCES)[number];

/**
 * Where an edit applies, always whole lines. Lines are compared without their leading and
 * trailing white space.
 * - `line`: the one line of the file that reads so (exactly one must), or with `near`, the first
 *   such line within 60 lines after the one line that reads `near`.
 * - `fn` + `sha256`: a function's definition, from the one line that starts with `fn` to the first
 *   line after it that is `}` alone; its text must hash to `sha256`.
 * - `from` + `to` + `sha256`: the lines from the one that reads `from` (or the first such line
 *   within 60 lines after `near`) to the first after it that reads `to`; they must hash to `sha256`.
 *
 * `sha256` is the first 16 hex digits of the sha256 of the region's lines, each ending in "\n".
 */
export type QuickjsAnchor =
  | { line: string; near?: string }
  | { fn: string; sha256: string }
  | { from: string; to: string; sha256: string; near?: string };

/** One edit of ours to the fetched sources. */
export interface QuickjsPatch {
  file: QuickjsSource;
  at: QuickjsAnchor;
  /** Put `text` before or after the anchored lines, or in their place. */
  op: 'before' | 'after' | 'replace';
  /** Our C, whole lines (a final newline is added when missing). */
  text: string;
  /** Why the engine needs it, with what it measured (kept with the edit, for the next upgrade). */
  why: string;
}
