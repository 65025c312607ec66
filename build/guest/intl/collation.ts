/**
 * The collation table a guest's Intl.Collator compares with (runtime/collator.js), derived from
 * this Node's own ICU (issue 33). No Collator polyfill with CLDR's collation data exists on npm
 * (@formatjs has none; `intl` and `lean-intl` leave collation out), so the build asks the ICU
 * that `mep` runs on: it sorts each character of a bounded repertoire — Latin (with its
 * extensions), Greek, Cyrillic, combining marks, punctuation, digits, currency and common
 * symbols — at each strength and records, per character, its collation elements (primary,
 * secondary, tertiary ranks). Characters whose primary equals two letters (ß = ss, æ = ae) and
 * compatibility characters (ﬁ = fi) expand to those letters' elements. Text outside the
 * repertoire is ordered by code point after it, with a warning (runtime/collator.js). A
 * locale's table is that locale's order (sv puts å, ä, ö after z).
 */

/** Code point ranges of the repertoire. */
const REPERTOIRE: readonly [number, number][] = [
  [0x20, 0x7e], [0xa0, 0x24f], [0x250, 0x2af], [0x2b0, 0x2ff], [0x300, 0x36f], [0x370, 0x3ff], [0x400, 0x4ff], [0x500, 0x52f],
  [0x1e00, 0x1eff], [0x2000, 0x206f], [0x20a0, 0x20c0], [0x2100, 0x214f], [0x2150, 0x218f], [0x2190, 0x21ff], [0x2200, 0x22ff], [0xfb00, 0xfb06],
];

/** One character's collation elements: [primary, secondary, tertiary] each, 0 for ignorable at that level. */
export type CollationElements = [number, number, number][];

/** What a guest needs to compare: each character's elements, and the characters ignorePunctuation skips. */
export interface CollationTable {
  locale: string;
  /** Character -> elements, packed as "p.s.t" joined by "," per element (runtime/collator.js reads it). */
  elements: Record<string, string>;
  /** The characters ignored with ignorePunctuation. */
  variable: string;
  /** The characters of the repertoire ignored at every level (besides controls). */
  ignored: string;
  /** The largest primary in the table (text outside the repertoire sorts after it). */
  maxPrimary: number;
}

/** Groups `items` (sorted by `cmp`) into runs of equal ones. */
function runs<T>(items: T[], cmp: (a: T, b: T) => number): T[][] {
  const out: T[][] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (last && cmp(last[0]!, item) === 0) last.push(item);
    else out.push([item]);
  }
  return out;
}

/**
 * Derives the table of `locale` from this Node's ICU. About 0.2 s; the caller keeps the result.
 *
 * @example
 * const table = collationTable('de');
 */
export function collationTable(locale: string): CollationTable {
  const at = (sensitivity: 'base' | 'accent' | 'variant') => new Intl.Collator(locale, { sensitivity }).compare;
  const base = at('base'), accent = at('accent'), variant = at('variant');
  const punct = new Intl.Collator(locale, { ignorePunctuation: true }).compare;
  const chars: string[] = [];
  for (const [lo, hi] of REPERTOIRE) {
    for (let cp = lo; cp <= hi; cp++) {
      const c = String.fromCodePoint(cp);
      if (/\p{Cn}|\p{Cc}/u.test(c)) continue;
      if (c.normalize('NFD') !== c) continue; // composed characters are compared through their decomposition
      chars.push(c);
    }
  }
  const ignorable = new Set(chars.filter((c) => base(c, '') === 0));
  const spelled = chars.filter((c) => !ignorable.has(c));
  // Primary: classes of characters equal at base strength, in order.
  const primaryRuns = runs([...spelled].sort(base), base);
  const primaryOf = new Map<string, number>();
  primaryRuns.forEach((run, i) => run.forEach((c) => primaryOf.set(c, i + 1)));
  const heads = primaryRuns.map((run) => [...run].sort(variant)[0]!);
  // Expansions: a class that equals its head's compatibility decomposition, or two letters
  // (found by a binary search of the letter pairs, which sort as they spell), at base strength.
  const letters = spelled.filter((c) => /^[a-z]$/.test(c));
  const pairs = letters.flatMap((x) => letters.map((y) => x + y)).sort(base);
  const pairOf = (c: string): string | undefined => {
    for (let lo = 0, hi = pairs.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      const d = base(c, pairs[mid]!);
      if (d === 0) return pairs[mid];
      if (d < 0) hi = mid - 1;
      else lo = mid + 1;
    }
    return undefined;
  };
  const expansion = new Map<string, string>();
  primaryRuns.forEach((run, i) => {
    const head = heads[i]!;
    const nfkd = head.normalize('NFKD');
    const spelledAs = nfkd !== head && [...nfkd].length > 1 && base(head, nfkd) === 0 ? nfkd : /\p{L}/u.test(head) && head.codePointAt(0)! >= 0x80 ? pairOf(head) : undefined;
    if (spelledAs) for (const c of run) expansion.set(c, c === head || c.normalize('NFKD') === spelledAs ? spelledAs : (c.normalize('NFKD').length > 1 ? c.normalize('NFKD') : spelledAs.toUpperCase()));
  });
  // Secondary: 1 for a letter as its class's head has it; combining marks ranked among
  // themselves (3, 5, 7, …, each written before the same letter), and a letter with a mark of its
  // own (ø beside o) placed among them by comparing it with each mark written before its head.
  const marks = runs([...ignorable].filter((c) => accent(c, '') !== 0).sort((x, y) => accent(`${x}a`, `${y}a`)), (x, y) => accent(`${x}a`, `${y}a`));
  const secondaryOf = new Map<string, number>();
  marks.forEach((run, i) => run.forEach((m) => secondaryOf.set(m, 2 * i + 3)));
  for (const c of spelled) {
    const h = heads[primaryOf.get(c)! - 1]!;
    if (accent(c, h) === 0 || expansion.has(c)) continue;
    let lo = 0, hi = marks.length - 1, rank = 2 * marks.length + 2;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const d = accent(c, `${marks[mid]![0]}${h}`);
      if (d === 0) { rank = 2 * mid + 3; break; }
      if (d < 0) { rank = 2 * mid + 2; hi = mid - 1; } else lo = mid + 1;
    }
    secondaryOf.set(c, rank);
  }
  // Tertiary: 1 for small and caseless letters, 2 for capitals, and past them, within the
  // characters equal at accent strength, the rank at variant strength of the other variants
  // (superscripts, compatibility forms), so that case compares alike in every class.
  const tertiaryOf = new Map<string, number>();
  for (const run of runs([...spelled].sort(accent), accent)) {
    runs(run.sort(variant), variant).forEach((r, i) =>
      r.forEach((c) => tertiaryOf.set(c, c.normalize('NFKC') !== c ? 3 + i : c !== c.toLowerCase() ? 2 : 1)),
    );
  }
  for (const run of marks) for (const m of run) tertiaryOf.set(m, 1);
  const single = (c: string): [number, number, number] => [primaryOf.get(c) ?? 0, secondaryOf.get(c) ?? 1, tertiaryOf.get(c) ?? 1];
  const elements: Record<string, string> = {};
  for (const c of chars) {
    if (ignorable.has(c) && !secondaryOf.has(c)) continue; // completely ignorable: absent from the table
    const spelledAs = expansion.get(c);
    let ces: [number, number, number][] = spelledAs ? [...spelledAs.normalize('NFD')].map(single) : [single(c)];
    // An expansion differs from what it spells at the tertiary level (ß after ss): its last element says so.
    if (spelledAs) ces = ces.map((ce, i) => (i === ces.length - 1 ? [ce[0], ce[1], ce[2] + 1 + (tertiaryOf.get(c) ?? 0)] : ce));
    elements[c] = ces.map((ce) => ce.join('.')).join(',');
  }
  const variable = spelled.filter((c) => punct(c, '') === 0).join('');
  const ignored = [...ignorable].filter((c) => !secondaryOf.has(c)).join('');
  return { locale, elements, variable, ignored, maxPrimary: primaryRuns.length };
}
