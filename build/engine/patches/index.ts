/**
 * The engine's edits to quickjs-ng, applied in this order after the package's sha256 check (see
 * ../quickjs-source.ts and ./apply.ts). Each is small and says why; a source that no longer
 * matches fails the build instead of silently building without it. Grouped by what they touch,
 * one file each.
 */
import { ALLOC_PATCHES } from './alloc.ts';
import { ATOMICS_PATCHES } from './atomics.ts';
import { AWAIT_LIVENESS_PATCHES } from './await-liveness.ts';
import { BRANCH_PATCHES } from './branches.ts';
import { CALL_PATCHES } from './calls.ts';
import { COMPARE_PATCHES } from './compare.ts';
import { DATE_FIELDS_PATCHES } from './date-fields.ts';
import { FAST_PATH_PATCHES } from './fast-paths.ts';
import { LEAF_CALL_PATCHES } from './leaf-calls.ts';
import { LOOP_LOCALS_PATCHES } from './loop-locals.ts';
import { MAP_HASH_PATCHES } from './map-hash.ts';
import { INLINE_PATCHES } from './inline.ts';
import { INTERPRETER_PATCHES } from './interpreter.ts';
import { JSON_DEPTH_PATCHES } from './json-depth.ts';
import { JSON_PARSE_PATCHES } from './json-parse.ts';
import { JSON_STRINGIFY_PATCHES } from './json-stringify.ts';
import { NUMBER_PATCHES } from './numbers.ts';
import { OUT_OF_MEMORY_PATCHES } from './out-of-memory.ts';
import { PARSE_PATCHES } from './parse.ts';
import { POSITION_PATCHES } from './positions.ts';
import { PROPERTY_ARRAY_PATCHES } from './property-arrays.ts';
import { OBJECT_SIZE_PATCHES } from './object-size.ts';
import { REGEXP_PATCHES } from './regexp.ts';
import { RUNTIME_PATCHES } from './runtime.ts';
import { SHAPE_PATCHES } from './shapes.ts';
import { CHUNK_SWEEP_PATCHES } from './chunk-sweep.ts';
import { STRIP_SOURCE_PATCHES } from './strip-source.ts';
import { STRING_PATCHES } from './strings.ts';
import { TDZ_PATCHES } from './tdz.ts';
import { TEMPLATE_OBJECT_PATCHES } from './template-object.ts';
import { TYPED_ARRAY_PATCHES } from './typed-arrays.ts';
import { WEAKREF_PATCHES } from './weakref.ts';
import type { QuickjsPatch } from './types.ts';

export { QUICKJS_SOURCES, type QuickjsAnchor, type QuickjsPatch, type QuickjsSource } from './types.ts';

export const QUICKJS_PATCHES: readonly QuickjsPatch[] = [...ALLOC_PATCHES, ...RUNTIME_PATCHES, ...OUT_OF_MEMORY_PATCHES, ...OBJECT_SIZE_PATCHES, ...PROPERTY_ARRAY_PATCHES, ...CHUNK_SWEEP_PATCHES, ...JSON_PARSE_PATCHES, ...JSON_STRINGIFY_PATCHES, ...JSON_DEPTH_PATCHES, ...WEAKREF_PATCHES, ...DATE_FIELDS_PATCHES, ...INLINE_PATCHES, ...INTERPRETER_PATCHES, ...LEAF_CALL_PATCHES, ...CALL_PATCHES, ...COMPARE_PATCHES, ...BRANCH_PATCHES, ...FAST_PATH_PATCHES, ...PARSE_PATCHES, ...NUMBER_PATCHES, ...REGEXP_PATCHES, ...POSITION_PATCHES, ...ATOMICS_PATCHES, ...TEMPLATE_OBJECT_PATCHES, ...STRIP_SOURCE_PATCHES, ...AWAIT_LIVENESS_PATCHES, ...TYPED_ARRAY_PATCHES, ...TDZ_PATCHES, ...SHAPE_PATCHES, ...LOOP_LOCALS_PATCHES, ...MAP_HASH_PATCHES, ...STRING_PATCHES];
