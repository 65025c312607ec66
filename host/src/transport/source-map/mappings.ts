/**
 * The `mappings` of a source map, read without decoding them into tables: one pass over the
 * Base64 VLQ text checks it, and one pass answers a batch of lookups, keeping only the best
 * segment of each line asked for. A guest's map is attacker data: decoded into one array per line
 * (as before), a 4 MB section of a module cost the host 941 MB at its first error, and a 40 MB one
 * killed it. Reading it in passes costs time in proportion to its size, which the caller bounds
 * with a {@link MappingBudget}, and memory in proportion to the lookups. No I/O.
 */

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) DIGIT[BASE64.charCodeAt(i)] = i;

/** Thrown for a map whose JSON, shape or mappings are malformed. */
export class SourceMapError extends Error {
  override readonly name: string = 'SourceMapError';
}

/** Thrown when a map is larger than the host decodes, or reading it took longer than its budget. */
export class SourceMapLimitError extends SourceMapError {
  override readonly name = 'SourceMapLimitError';
  constructor(
    message: string,
    /** The bound that was reached (`maxSourceMapBytes`, `sourceMapMs`). */
    readonly limit: string,
  ) {
    super(message);
  }
}

/** How long passes over mappings may take: a point in `performance.now()` time past which they stop. */
export interface MappingBudget {
  /** `performance.now()` value past which a pass throws {@link SourceMapLimitError}. */
  readonly deadline: number;
}

/** Time that passes over one map may take in all: each pass gets what is left, and spends what it took. */
export interface TimeBudget {
  /** Runs one pass with the deadline of what is left; charges the time it took, also when it throws. */
  pass<T>(fn: (budget: MappingBudget) => T): T;
  /** Milliseconds left. */
  readonly left: number;
}

/** A {@link TimeBudget} of `ms` milliseconds (`Infinity`: unbounded). */
export function createTimeBudget(ms: number): TimeBudget {
  let left = ms;
  return {
    pass(fn) {
      const started = performance.now();
      if (left <= 0) throw new SourceMapLimitError('the time to read the source map is spent', 'sourceMapMs');
      try {
        return fn({ deadline: started + left });
      } finally {
        left -= performance.now() - started;
      }
    },
    get left() {
      return left;
    },
  };
}

/** One segment with a source, 0-based: generated column, source index, original line and column. */
export type Segment = [generatedColumn: number, source: number, line: number, column: number];

/** Lines between two checkpoints of a {@link MappingIndex}. */
const CHECKPOINT_LINES = 64;

/**
 * Where every 64th generated line starts in `mappings`, with the decoder's state there (offset,
 * source, original line, original column): a lookup decodes from the checkpoint before its line,
 * not from the start. Four numbers per 64 lines: at most a quarter of the mappings' length.
 */
export type MappingIndex = Int32Array;

interface Start {
  line: number;
  pos: number;
  source: number;
  originalLine: number;
  originalColumn: number;
}

/**
 * Walks `mappings` from `start` and calls `visit` with each segment that has a source, and its
 * 0-based generated line; stops after line `lastLine`. `checkpoint` is told the state at the
 * start of every {@link CHECKPOINT_LINES}th line. Throws {@link SourceMapError} for malformed
 * text or a segment outside the sources, and {@link SourceMapLimitError} past the budget.
 */
function walk(mappings: string, sourceCount: number, budget: MappingBudget, start: Start, visit?: (line: number, segment: Segment) => void, lastLine = Infinity, checkpoint?: (state: Start) => void): void {
  const fields = [0, 0, 0, 0, 0];
  let { line, pos, source, originalLine, originalColumn } = start;
  let generatedColumn = 0;
  let segments = 0;
  const end = mappings.length;
  while (pos < end) {
    const c = mappings.charCodeAt(pos);
    if (c === 59 /* ; */) {
      if (++line > lastLine) return;
      generatedColumn = 0;
      pos++;
      if (checkpoint !== undefined && line % CHECKPOINT_LINES === 0) checkpoint({ line, pos, source, originalLine, originalColumn });
      continue;
    }
    if (c === 44 /* , */) {
      pos++;
      continue;
    }
    if ((++segments & 0xfff) === 0 && performance.now() > budget.deadline) {
      throw new SourceMapLimitError('reading the source map took longer than its budget', 'sourceMapMs');
    }
    let count = 0;
    while (pos < end && mappings.charCodeAt(pos) !== 44 && mappings.charCodeAt(pos) !== 59) {
      let value = 0;
      let shift = 0;
      let digit: number;
      do {
        const code = mappings.charCodeAt(pos++);
        digit = code < 128 ? (DIGIT[code] as number) : -1;
        if (digit < 0 || pos > end || shift > 30) throw new SourceMapError(`invalid Base64 VLQ in mappings at offset ${pos - 1}`);
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
    visit?.(line, [generatedColumn, source, originalLine, originalColumn]);
  }
}

const ORIGIN: Start = { line: 0, pos: 0, source: 0, originalLine: 0, originalColumn: 0 };

/** Checks `mappings` in one pass and returns its {@link MappingIndex}; throws as {@link walk} does. */
export function indexMappings(mappings: string, sourceCount: number, budget: MappingBudget): MappingIndex {
  const points: number[] = [0, 0, 0, 0];
  walk(mappings, sourceCount, budget, ORIGIN, undefined, Infinity, (s) => points.push(s.pos, s.source, s.originalLine, s.originalColumn));
  return Int32Array.from(points);
}

/** A generated position asked for: 1-based line, 1-based column when the engine reported one. */
export interface GeneratedPosition {
  line: number;
  column?: number;
}

/**
 * For each position, the segment that maps it (the last at or before its column, or its line's
 * first segment when no column is given or the column is before it), or undefined for a line
 * with no segment. One pass from the checkpoint before the first line asked for to the last.
 */
export function lookupSegments(mappings: string, sourceCount: number, index: MappingIndex, positions: readonly GeneratedPosition[], budget: MappingBudget): (Segment | undefined)[] {
  const byLine = new Map<number, number[]>();
  positions.forEach((p, i) => {
    if (!Number.isInteger(p.line) || p.line < 1) return;
    const wanted = byLine.get(p.line - 1);
    if (wanted === undefined) byLine.set(p.line - 1, [i]);
    else wanted.push(i);
  });
  const found: (Segment | undefined)[] = positions.map(() => undefined);
  if (byLine.size === 0) return found;
  const firstLine = Math.min(...byLine.keys());
  const k = Math.min(Math.floor(firstLine / CHECKPOINT_LINES), index.length / 4 - 1);
  const start: Start = { line: k * CHECKPOINT_LINES, pos: index[k * 4] as number, source: index[k * 4 + 1] as number, originalLine: index[k * 4 + 2] as number, originalColumn: index[k * 4 + 3] as number };
  const visit = (line: number, segment: Segment): void => {
    const wanted = byLine.get(line);
    if (wanted === undefined) return;
    for (const i of wanted) {
      const column = positions[i]?.column;
      // Segments come sorted by generated column: keep the first, then any at or before the column.
      if (found[i] === undefined || (column !== undefined && segment[0] <= column - 1)) found[i] = segment;
    }
  };
  walk(mappings, sourceCount, budget, start, visit, Math.max(...byLine.keys()));
  return found;
}
