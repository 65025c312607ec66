/** The shape of the engine's edits to QuickJS (see {@link ./index.ts}). */

/** The C files of libquickjs (quickjs-libc.c is not used: the engine has no OS). */
export const QUICKJS_SOURCES = ['cutils.c', 'libregexp.c', 'libunicode.c', 'libbf.c', 'quickjs.c'] as const;

/** One edit of ours to the fetched sources: `find` must occur exactly once in `file`. */
export interface QuickjsPatch {
  file: (typeof QUICKJS_SOURCES)[number];
  find: string;
  replace: string;
  /** Why the engine needs it (kept with the edit, for the next QuickJS upgrade). */
  why: string;
}
