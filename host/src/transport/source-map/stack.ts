/**
 * Guest stack traces mapped to the author's sources. Reads the frame lines of the engines an
 * extension runs in: QuickJS (`    at level3 (guest.js:6771)`, a line only; quickjs-ng adds the
 * column), V8 (`    at level3 (file:///x/dist/ext.mjs:6661:20)`, `    at file:///x.mjs:3:7`) and
 * the location line Node prints above an uncaught error (`file:///x.mjs:3`). Frames of the
 * bundle are mapped through its source map; every other line is kept as it is.
 */
import type { SourceMap } from './source-map.ts';

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
  const frames: StackFrame[] = [];
  const lines = text.split('\n').map((line) => {
    const frame = FRAME.exec(line);
    if (frame) {
      const [, lead, fn, file, lineText, columnText] = frame as unknown as [string, string, string | undefined, string, string, string | undefined];
      const generated = { line: Number(lineText), column: columnText === undefined ? undefined : Number(columnText) };
      const original = isBundle(file) ? map.lookup(generated.line, generated.column) : undefined;
      const entry: StackFrame = original
        ? { file: original.source, line: original.line, mapped: true, ignored: original.ignored }
        : { file, line: generated.line, mapped: false, ignored: true };
      if (original?.column !== undefined) entry.column = original.column;
      else if (!original && generated.column !== undefined) entry.column = generated.column;
      if (fn !== undefined) entry.function = fn;
      frames.push(entry);
      if (!original) return line;
      return fn === undefined ? `${lead}${formatPosition(entry)}` : `${lead}${fn} (${formatPosition(entry)})`;
    }
    const location = LOCATION.exec(line);
    if (location && isBundle(location[1] as string)) {
      const original = map.lookup(Number(location[2]));
      if (original) return formatPosition({ file: original.source, line: original.line });
    }
    return line;
  });
  const origin = frames.find((f) => f.mapped && !f.ignored);
  return { stack: lines.join('\n'), frames, ...(origin ? { origin } : {}) };
}
