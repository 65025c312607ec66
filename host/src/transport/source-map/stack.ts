/**
 * Guest stack traces mapped to the author's sources. Reads the frame lines of the engines an
 * extension runs in: QuickJS (`    at level3 (guest.js:6771)`, a line only; quickjs-ng adds the
 * column), V8 (`    at level3 (file:///x/dist/ext.mjs:6661:20)`, `    at file:///x.mjs:3:7`) and
 * the location line Node prints above an uncaught error (`file:///x.mjs:3`). Frames of the
 * bundle are mapped through its source map; every other line is kept as it is.
 */
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import type { GeneratedPosition, SourceMap } from './source-map.ts';

/** One frame of a stack, where it points after mapping. */
export interface StackFrame {
  /** The function name the engine reported (the bundle's name for it), if any. */
  function?: string;
  /** The source file: relative to the project for the author's code, `node_modules/…` for a dependency. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based; absent when the engine reported a line only. */
  column?: number;
  /** True when the frame was mapped from the bundle to a source. */
  mapped: boolean;
  /** True for a dependency's or the runtime's code (the map's `ignoreList`), or an unmapped frame. */
  ignored: boolean;
}

/** A stack with its frames mapped. */
export interface MappedStack {
  /** The stack text with every mapped frame rewritten to `file:line:col`. */
  stack: string;
  /** Every frame that could be read, in order. */
  frames: StackFrame[];
  /** The first frame in the author's own code (mapped and not ignored), if there is one. */
  origin?: StackFrame;
}

const FRAME = /^(\s*at )(?:(.+?) \()?((?:file:\/\/)?[^\s()]+?):(\d+)(?::(\d+))?\)?\s*$/;
const LOCATION = /^((?:file:\/\/)?\/[^\s()]+?):(\d+)$/;

function baseName(file: string): string {
  const clean = file.replace(/[?#].*$/, '');
  return clean.slice(clean.lastIndexOf('/') + 1);
}

/** `file:line:col` (or `file:line` without a column). */
export function formatPosition(frame: Pick<StackFrame, 'file' | 'line' | 'column'>): string {
  return `${frame.file}:${frame.line}${frame.column === undefined ? '' : `:${frame.column}`}`;
}

/** How a stack is mapped: the bundle's map and how to recognise the bundle in a frame. */
export interface StackMapping {
  map: SourceMap;
  /** True when a frame's file is the bundle the map describes. Default: its base name is the map's `file`. */
  isBundle?: (file: string) => boolean;
}

/**
 * Maps every frame of `text` that points into the bundle. Lines that are not frames, and frames
 * outside the bundle (Node internals, native functions), are kept unchanged.
 *
 * @example
 * mapStack('    at level3 (guest.js:6771)', { map }).origin; // { file: 'src/lib/deep.ts', line: 13, … }
 */
export function mapStack(text: string, mapping: StackMapping): MappedStack {
  const { map } = mapping;
  const isBundle = mapping.isBundle ?? ((file: string) => map.file !== undefined && baseName(file) === baseName(map.file));
  const lines = text.split('\n');
  // What to look up, read first so that one pass over the mappings answers them all; at most
  // maxMappedFrames frames (a guest's stack may be as long as a message): the rest stay as they are.
  const parsed: ({ kind: 'frame'; lead: string; fn?: string; file: string; line: number; column?: number; at?: number } | { kind: 'location'; file: string; line: number; at: number } | undefined)[] = [];
  const positions: GeneratedPosition[] = [];
  let frameCount = 0;
  for (const line of lines) {
    if (frameCount >= HOST_BOUNDS.maxMappedFrames) {
      parsed.push(undefined);
      continue;
    }
    const frame = FRAME.exec(line);
    if (frame) {
      frameCount++;
      const [, lead, fn, file, lineText, columnText] = frame as unknown as [string, string, string | undefined, string, string, string | undefined];
      const entry: (typeof parsed)[number] = { kind: 'frame', lead, file, line: Number(lineText), ...(fn === undefined ? {} : { fn }), ...(columnText === undefined ? {} : { column: Number(columnText) }) };
      if (isBundle(file)) {
        entry.at = positions.length;
        positions.push(entry.column === undefined ? { line: entry.line } : { line: entry.line, column: entry.column });
      }
      parsed.push(entry);
      continue;
    }
    const location = LOCATION.exec(line);
    if (location && isBundle(location[1] as string)) {
      parsed.push({ kind: 'location', file: location[1] as string, line: Number(location[2]), at: positions.length });
      positions.push({ line: Number(location[2]) });
    } else parsed.push(undefined);
  }
  const originals = positions.length > 0 ? map.lookupAll(positions) : [];
  const frames: StackFrame[] = [];
  const mapped = lines.map((line, i) => {
    const item = parsed[i];
    if (item === undefined) return line;
    const original = item.at === undefined ? undefined : originals[item.at];
    if (item.kind === 'location') return original ? formatPosition({ file: original.source, line: original.line }) : line;
    const entry: StackFrame = original ? { file: original.source, line: original.line, mapped: true, ignored: original.ignored } : { file: item.file, line: item.line, mapped: false, ignored: true };
    if (original?.column !== undefined) entry.column = original.column;
    else if (!original && item.column !== undefined) entry.column = item.column;
    if (item.fn !== undefined) entry.function = item.fn;
    frames.push(entry);
    if (!original) return line;
    return item.fn === undefined ? `${item.lead}${formatPosition(entry)}` : `${item.lead}${item.fn} (${formatPosition(entry)})`;
  });
  const origin = frames.find((f) => f.mapped && !f.ignored);
  return { stack: mapped.join('\n'), frames, ...(origin ? { origin } : {}) };
}
