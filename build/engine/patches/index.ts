/**
 * The engine's edits to QuickJS, applied in this order after the integrity check (see
 * ../quickjs-source.ts). Each is small and says why; a source that no longer matches fails the
 * build instead of silently building without it. Grouped by what they touch, one file each.
 */
import { JSON_PARSE_PATCHES } from './json-parse.ts';
import { JSON_STRINGIFY_PATCHES } from './json-stringify.ts';
import { MAP_PATCHES } from './maps.ts';
import { OBJECT_PATCHES } from './objects.ts';
import { RUNTIME_PATCHES } from './runtime.ts';
import type { QuickjsPatch } from './types.ts';

export { QUICKJS_SOURCES, type QuickjsPatch } from './types.ts';

export const QUICKJS_PATCHES: readonly QuickjsPatch[] = [
  ...RUNTIME_PATCHES,
  ...OBJECT_PATCHES,
  ...JSON_PARSE_PATCHES,
  ...JSON_STRINGIFY_PATCHES,
  ...MAP_PATCHES,
];
