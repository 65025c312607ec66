/**
 * A source map (version 3, ECMA-426) reader: parses the JSON once, decodes the Base64 VLQ
 * `mappings` once, and answers "where in the sources is generated line L (column C)". No I/O
 * and no `node:` module, so the wasm core (browser, edge) maps guest stacks with it too.
 *
 * Written here rather than taken from a package: decoding is some sixty lines, the host needs only
 * the generated-to-original direction, and the core must stay free of Node-only dependencies.
 */
import * as z from 'zod';
import { parseJson } from '../../protocol/json-parse.ts';

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
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** Thrown for a map whose JSON, shape or mappings are malformed. */
export class SourceMapError extends Error {
  override readonly name = 'SourceMapError';
}

/**
 * Decodes `mappings` into one flat array per generated line of
 * `[generatedColumn, sourceIndex, originalLine, originalColumn]` quadruples, all 0-based.
 * Segments of one field (generated code with no source) are left out.
 */
function decodeMappings(mappings: string, sourceCount: number): Int32Array[] {
  const lines: Int32Array[] = [];
  const fields = [0, 0, 0, 0, 0];
  let line: number[] = [];
  let generatedColumn = 0;
  let source = 0;
  let originalLine = 0;
  let originalColumn = 0;
  let pos = 0;
  const end = mappings.length;
  while (pos <= end) {
    const c = pos < end ? mappings.charCodeAt(pos) : 59; // the end closes the last line like ';'
    if (c === 59 /* ; */) {
      lines.push(Int32Array.from(line));
      line = [];
      generatedColumn = 0;
      pos++;
      continue;
    }
    if (c === 44 /* , */) {
      pos++;
      continue;
    }
    let count = 0;
    while (pos < end && mappings.charCodeAt(pos) !== 44 && mappings.charCodeAt(pos) !== 59) {
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        const code = mappings.charCodeAt(pos++);
        digit = code < 128 ? (DIGIT[code] as number) : -1;
        if (digit < 0 || pos > end) throw new SourceMapError(`invalid Base64 VLQ in mappings at offset ${pos - 1}`);
        value += (digit & 31) * 2 ** shift;
        shift += 5;
      } while (digit & 32);
      if (count === 5) throw new SourceMapError(`a mapping segment has more than five fields at offset ${pos}`);
      fields[count++] = value % 2 === 1 ? -Math.floor(value / 2) : Math.floor(value / 2);
    }
    if (count !== 1 && count !== 4 && count !== 5) throw new SourceMapError(`a mapping segment has ${count} fields (1, 4 or 5 expected)`);
    generatedColumn += fields[0] as number;
    if (count === 1) continue;
    source += fields[1] as number;
    originalLine += fields[2] as number;
    originalColumn += fields[3] as number;
    if (source < 0 || source >= sourceCount || originalLine < 0 || originalColumn < 0 || generatedColumn < 0) {
      throw new SourceMapError(`a mapping points outside the sources (source ${source}, line ${originalLine}, column ${originalColumn})`);
    }
    line.push(generatedColumn, source, originalLine, originalColumn);
  }
  return lines;
}

/**
 * Parses and decodes a source map (JSON text or an already parsed object). Throws
 * {@link SourceMapError} when it is not a valid version 3 map.
 *
 * @example
 * const map = parseSourceMap(readFileSync('dist/extension.mjs.map', 'utf8'));
 * map.lookup(6661, 20); // { source: 'src/lib/deep.ts', line: 13, column: 11, ignored: false }
 */
export function parseSourceMap(input: string | unknown): SourceMap {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = parseJson(input, 'data');
    } catch (error) {
      throw new SourceMapError(`the source map is not JSON (${(error as Error).message})`);
    }
  }
  const parsed = SourceMapJson.safeParse(json);
  if (!parsed.success) throw new SourceMapError(`not a version 3 source map (${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? ''})`);
  const map = parsed.data;
  const sources = map.sources.map((s) => s ?? '');
  const ignored = new Set(map.ignoreList ?? []);
  const lines = decodeMappings(map.mappings, sources.length);
  const at = (segments: Int32Array, i: number, column: boolean): OriginalPosition => {
    const source = segments[i + 1] as number;
    const position: OriginalPosition = { source: sources[source] as string, line: (segments[i + 2] as number) + 1, ignored: ignored.has(source) };
    if (column) position.column = (segments[i + 3] as number) + 1;
    return position;
  };
  return {
    file: map.file,
    sources,
    lookup(line, column) {
      const segments = lines[line - 1];
      if (segments === undefined || segments.length === 0) return undefined;
      if (column === undefined) return at(segments, 0, false);
      // The last segment at or before the column (segments are sorted by generated column);
      // a column before the first segment still belongs to that line's first mapping.
      let lo = 0;
      let hi = segments.length / 4 - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((segments[mid * 4] as number) <= column - 1) lo = mid;
        else hi = mid - 1;
      }
      return at(segments, lo * 4, true);
    },
  };
}
