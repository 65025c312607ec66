/** A minimal source map v3 reader: maps a generated line (and column) to its original position. */

export interface OriginalPosition {
  source: string;
  line: number; // 1-based
  column: number; // 1-based
}

interface RawMap {
  sources: string[];
  mappings: string;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeVlq(s: string, i: { p: number }): number {
  let result = 0, shift = 0, digit: number;
  do {
    digit = B64.indexOf(s[i.p++]!);
    result += (digit & 31) << shift;
    shift += 5;
  } while (digit & 32);
  return result & 1 ? -(result >>> 1) : result >>> 1;
}

/** Parses a JSON source map and returns a lookup function (null when the line has no mapping). */
export function createSourceMapLookup(json: string): (line: number, column?: number) => OriginalPosition | null {
  const map = JSON.parse(json) as RawMap;
  const lines: [number, number, number, number][][] = [];
  let src = 0, oLine = 0, oCol = 0;
  for (const text of map.mappings.split(';')) {
    const segs: [number, number, number, number][] = [];
    let gCol = 0;
    if (text) {
      for (const seg of text.split(',')) {
        const i = { p: 0 };
        gCol += decodeVlq(seg, i);
        if (i.p < seg.length) {
          src += decodeVlq(seg, i);
          oLine += decodeVlq(seg, i);
          oCol += decodeVlq(seg, i);
          segs.push([gCol, src, oLine, oCol]);
        }
      }
    }
    lines.push(segs);
  }
  return (line, column = 1) => {
    const segs = lines[line - 1];
    if (!segs || segs.length === 0) return null;
    let best = segs[0]!;
    for (const s of segs) if (s[0] <= column - 1) best = s;
    return { source: map.sources[best[1]] ?? '?', line: best[2] + 1, column: best[3] + 1 };
  };
}
