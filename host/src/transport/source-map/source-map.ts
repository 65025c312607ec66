/**
 * A source map (version 3, ECMA-426) reader that answers "where in the sources is generated line
 * L (column C)". A guest's map is attacker data, so reading it is bounded: a map longer than
 * `HOST_BOUNDS.maxSourceMapBytes` is refused unread, only the members it needs are parsed
 * (json-members.ts; `sourcesContent` and `names` are skipped), and `mappings` are checked in one
 * pass and read in one pass per batch of lookups, never decoded into tables (mappings.ts), within
 * a time budget. No I/O and no `node:` module, so the wasm core (browser, edge) maps guest stacks
 * with it too.
 *
 * Written here rather than taken from a package: decoding is some sixty lines, the host needs only
 * the generated-to-original direction, and the core must stay free of Node-only dependencies.
 */
import * as z from 'zod';
import { parseJson } from '../../protocol/json-parse.ts';
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import { topLevelMembers } from './json-members.ts';
import { createTimeBudget, indexMappings, lookupSegments, SourceMapError, SourceMapLimitError, type GeneratedPosition, type Segment, type TimeBudget } from './mappings.ts';

export { createTimeBudget, SourceMapError, SourceMapLimitError, type GeneratedPosition, type TimeBudget } from './mappings.ts';

/** The fields of a version 3 source map this reader uses (others are ignored). */
export const SourceMapJson = z.looseObject({
  version: z.literal(3),
  /** The generated file's name: `guest.js` for a wasm bundle, the script's name for a process build. */
  file: z.string().optional(),
  sourceRoot: z.string().optional(),
  sources: z.array(z.string().nullable()),
  sourcesContent: z.array(z.string().nullable()).optional(),
  names: z.array(z.string()).optional(),
  mappings: z.string(),
  /** Indices into `sources` of code that is not the author's (dependencies, the runtime). */
  ignoreList: z.array(z.number().int().nonnegative()).optional(),
});
/** The fields of a version 3 source map this reader uses (others are ignored). */
export type SourceMapJson = z.infer<typeof SourceMapJson>;

/** A position in the original sources; `line` and `column` are 1-based like an editor's. */
export interface OriginalPosition {
  /** The source as the map names it (for `mep build` maps: relative to the project). */
  source: string;
  line: number;
  /** Present when the lookup was given a generated column; without one only the line is known. */
  column?: number;
  /** True when the map's `ignoreList` marks the source as not the author's (a dependency). */
  ignored: boolean;
}

/** A decoded source map. */
export interface SourceMap {
  /** The generated file's name from the map, if it has one. */
  readonly file: string | undefined;
  /** The sources, as the map names them. */
  readonly sources: readonly string[];
  /**
   * The original position of generated `line` (1-based) and `column` (1-based, optional): the
   * closest mapping at or before the column, or the line's first mapping when no column is given
   * (the engine reports lines only). Undefined when the line has no mapping.
   */
  lookup(line: number, column?: number): OriginalPosition | undefined;
  /** {@link SourceMap.lookup} of several positions in one pass over the mappings (a stack's frames). */
  lookupAll(positions: readonly GeneratedPosition[]): (OriginalPosition | undefined)[];
}

/** Options of {@link parseSourceMap}. */
export interface SourceMapOptions {
  /** The longest map text read, in characters (default `HOST_BOUNDS.maxSourceMapBytes`). */
  maxChars?: number;
  /** The time the parse and every later lookup may take in all (default `HOST_BOUNDS.sourceMapMs`). */
  budget?: TimeBudget;
}

/**
 * Options for a map the build made itself from the author's own sources (esbuild's output on
 * this machine): no size or time bound, which are for maps a guest or a package supplies. Bounded
 * by time, a large bundle's own map failed its build on a busy machine.
 */
export const OWN_BUILD_MAP: SourceMapOptions = { maxChars: Number.POSITIVE_INFINITY, budget: createTimeBudget(Number.POSITIVE_INFINITY) };

/** The members of a map this reader parses; everything else is skipped unparsed. */
const MEMBERS = ['version', 'file', 'sourceRoot', 'sources', 'mappings', 'ignoreList'];

/** The members {@link MEMBERS} of a map text, parsed. */
function membersOf(text: string, maxChars: number): Record<string, unknown> {
  if (text.length > maxChars) {
    throw new SourceMapLimitError(`the source map is ${text.length} characters, more than the ${maxChars} the host reads (maxSourceMapBytes)`, 'maxSourceMapBytes');
  }
  const json: Record<string, unknown> = {};
  for (const [key, value] of topLevelMembers(text, MEMBERS)) {
    try {
      json[key] = parseJson(value, 'data');
    } catch (error) {
      throw new SourceMapError(`the source map is not JSON (${key}: ${(error as Error).message})`);
    }
  }
  return json;
}

/**
 * Parses a source map (JSON text or an already parsed object) and checks its mappings. Throws
 * {@link SourceMapError} when it is not a valid version 3 map, {@link SourceMapLimitError} when it
 * is longer than the host reads or checking it took longer than its budget.
 *
 * @example
 * const map = parseSourceMap(readFileSync('dist/extension.mjs.map', 'utf8'));
 * map.lookup(6661, 20); // { source: 'src/lib/deep.ts', line: 13, column: 11, ignored: false }
 */
export function parseSourceMap(input: string | unknown, options: SourceMapOptions = {}): SourceMap {
  const json = typeof input === 'string' ? membersOf(input, options.maxChars ?? HOST_BOUNDS.maxSourceMapBytes) : input;
  const parsed = SourceMapJson.safeParse(json);
  if (!parsed.success) throw new SourceMapError(`not a version 3 source map (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`);
  const map = parsed.data;
  const sources = map.sources.map((s) => s ?? '');
  const ignored = new Set(map.ignoreList ?? []);
  const budget = options.budget ?? createTimeBudget(HOST_BOUNDS.sourceMapMs);
  // Checked once, whole: a malformed map is refused now rather than at some lookup.
  const index = budget.pass((deadline) => indexMappings(map.mappings, sources.length, deadline));
  const at = (segment: Segment | undefined, column: boolean): OriginalPosition | undefined => {
    if (segment === undefined) return undefined;
    const position: OriginalPosition = { source: sources[segment[1]] as string, line: segment[2] + 1, ignored: ignored.has(segment[1]) };
    if (column) position.column = segment[3] + 1;
    return position;
  };
  const lookupAll = (positions: readonly GeneratedPosition[]): (OriginalPosition | undefined)[] =>
    budget.pass((deadline) => lookupSegments(map.mappings, sources.length, index, positions, deadline)).map((segment, i) => at(segment, positions[i]?.column !== undefined));
  return {
    file: map.file,
    sources,
    lookup: (line, column) => lookupAll([column === undefined ? { line } : { line, column }])[0],
    lookupAll,
  };
}
