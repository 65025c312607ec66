/**
 * Where the declarations of a mep wasm guest's globals live, and what the type check of a guest
 * uses them with. The declarations are real files beside this module (sandbox.d.ts, the entry,
 * and the two it references); the repository's own type check excludes them (they redeclare
 * `console`, `URL` and friends, which clash with the DOM and Node types the repository uses),
 * `mep build` checks an entry against them, and the npm package ships them as
 * `mep-runtime/guest-pdk/globals` (scripts/build-package.ts).
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The entry declaration file: the ES2023 library, the web platform globals and the Extism globals. */
export const GUEST_TYPES = join(here, 'sandbox.d.ts');
/** The web platform globals alone (what a process build is checked with when Node's types are absent). */
export const GUEST_WEB_TYPES = join(here, 'sandbox-web.d.ts');
/** Every declaration file, the entry first (each is copied as is: they reference each other by relative path). */
export const GUEST_TYPES_FILES: readonly string[] = [GUEST_TYPES, GUEST_WEB_TYPES, join(here, 'sandbox-extism.d.ts')];

/**
 * The ECMAScript library a guest is checked with: ES2023, what both runtimes have (the sandbox's
 * engine and Node 20, which runs a process build). Newer built-ins the engine may have (Set
 * methods, iterator helpers) are not declared, so code that type-checks runs in both.
 */
export const GUEST_LIB: readonly string[] = ['lib.es2023.d.ts'];

/** The declarations' text, for cache keys. */
export function guestTypesText(): string {
  return GUEST_TYPES_FILES.map((f) => readFileSync(f, 'utf8')).join('\0');
}

/**
 * Copies the declarations into `dir` (for an editor setup without the npm package: reference the
 * returned file from a tsconfig's `files`, with `"lib": ["ES2023"]` and no DOM); returns the
 * entry's path.
 */
export function writeGuestTypes(dir: string): string {
  mkdirSync(dir, { recursive: true });
  for (const file of GUEST_TYPES_FILES) copyFileSync(file, join(dir, basename(file)));
  return join(dir, basename(GUEST_TYPES));
}
