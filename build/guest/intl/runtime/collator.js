// Intl.Collator for a guest (issue 33): ECMA-402's Collator over the collation table the build
// derived from the ICU of the Node that ran `mep build` (../collation.ts), so its order is that
// Node's. Strings are compared in normalization form D, level by level as the Unicode Collation
// Algorithm does: every primary weight first, then secondary (accents), then tertiary (case and
// variants), as far as `sensitivity` asks. Text outside the table's repertoire sorts after it by
// code point, with one warning per call to compare (`warn`).

const SENSITIVITIES = ['base', 'accent', 'case', 'variant'];
const USAGES = ['sort', 'search'];
const CASE_FIRST = ['upper', 'lower', 'false'];

/** Reads a packed table: char -> flat [p, s, t, p, s, t, ...]. */
function unpack(table) {
  const elements = new Map();
  for (const [ch, packed] of Object.entries(table.elements)) elements.set(ch, packed.split(/[.,]/).map(Number));
  return { elements, variable: new Set(table.variable), ignored: new Set(table.ignored), maxPrimary: table.maxPrimary };
}

function option(options, name, allowed, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  const s = typeof v === 'boolean' && allowed === undefined ? v : allowed === undefined ? Boolean(v) : String(v);
  if (allowed !== undefined && !allowed.includes(s)) throw new RangeError(`Value ${s} out of range for Intl.Collator options property ${name}`);
  return s;
}

/**
 * Makes the Collator class. `resolve(locales)` returns the locale to use (or throws when it is not
 * built in), `tableOf(locale)` its unpacked table, `warn()` reports text beyond the repertoire.
 */
export function makeCollator({ resolve, tables, supportedLocalesOf, warn }) {
  // Unpacked when the Collator is made (in the snapshot), not at its first compare.
  const unpacked = new Map(Object.keys(tables).map((k) => [k, unpack(tables[k])]));
  const tableOf = (locale) => unpacked.get(Object.keys(tables).find((k) => k === locale || locale.startsWith(`${k}-`)) ?? Object.keys(tables)[0]);
  const slots = new WeakMap();
  const collationElements = (state, text) => {
    const { table, numeric, ignorePunctuation } = state;
    const out = [];
    const s = String(text).normalize('NFD');
    for (let i = 0; i < s.length; ) {
      const ch = String.fromCodePoint(s.codePointAt(i));
      i += ch.length;
      if (numeric && ch >= '0' && ch <= '9') {
        let j = i;
        while (j < s.length && s[j] >= '0' && s[j] <= '9') j++;
        const digits = (ch + s.slice(i, j)).replace(/^0+(?=\d)/, '');
        i = j;
        // A number compares by its count of digits, then digit by digit (leading zeros ignored).
        const zero = table.elements.get('0')[0];
        out.push(zero - 1 + digits.length / (digits.length + 1), 1, 1);
        for (const d of digits) out.push(zero + (d.charCodeAt(0) - 48), 1, 1);
        continue;
      }
      const ces = table.elements.get(ch);
      if (ces === undefined) {
        if (table.ignored.has(ch) || /\p{Cc}/u.test(ch)) continue;
        warn();
        out.push(table.maxPrimary + ch.codePointAt(0), 1, 1);
        continue;
      }
      if (ignorePunctuation && table.variable.has(ch)) continue;
      for (const w of ces) out.push(w);
    }
    return out;
  };
  const level = (a, b, at, pick) => {
    let i = at, j = at;
    for (;;) {
      while (i < a.length && pick(a, i) === 0) i += 3;
      while (j < b.length && pick(b, j) === 0) j += 3;
      if (i >= a.length || j >= b.length) return i >= a.length ? (j >= b.length ? 0 : -1) : 1;
      const x = pick(a, i), y = pick(b, j);
      if (x !== y) return x < y ? -1 : 1;
      i += 3;
      j += 3;
    }
  };
  const compare = (state, x, y) => {
    const a = collationElements(state, x), b = collationElements(state, y);
    const upper = state.caseFirst === 'upper';
    const tertiary = (e, i) => (upper && (e[i] === 1 || e[i] === 2) && e[i - 2] !== 0 ? 3 - e[i] : e[i]);
    let d = level(a, b, 0, (e, i) => e[i]);
    if (d !== 0 || state.sensitivity === 'base') return d;
    if (state.sensitivity !== 'case') {
      d = level(a, b, 1, (e, i) => e[i]);
      if (d !== 0 || state.sensitivity === 'accent') return d;
    }
    if (state.sensitivity === 'case') return level(a, b, 2, (e, i) => (e[i - 2] === 0 ? 0 : tertiary(e, i) === 2 ? 2 : 1));
    return level(a, b, 2, tertiary);
  };

  // A function, not a class: Intl.Collator may be called without new (ECMA-402 10.1.1).
  function Collator(locales = undefined, options = undefined) {
    if (!new.target) return new Collator(locales, options);
    const opts = options === undefined ? {} : Object(options);
    const usage = option(opts, 'usage', USAGES, 'sort');
    option(opts, 'localeMatcher', ['lookup', 'best fit'], 'best fit');
    const numeric = opts.numeric === undefined ? false : Boolean(opts.numeric);
    const caseFirst = option(opts, 'caseFirst', CASE_FIRST, 'false');
    const sensitivity = option(opts, 'sensitivity', SENSITIVITIES, 'variant');
    const ignorePunctuation = opts.ignorePunctuation === undefined ? false : Boolean(opts.ignorePunctuation);
    const locale = resolve(locales, 'Collator');
    slots.set(this, { locale, usage, numeric, caseFirst, sensitivity, ignorePunctuation, table: tableOf(locale), bound: undefined });
  }
  const stateOf = (that, method) => {
    const state = slots.get(that);
    if (state === undefined) throw new TypeError(`Method Intl.Collator.prototype.${method} called on incompatible receiver ${String(that)}`);
    return state;
  };
  Object.defineProperty(Collator, 'supportedLocalesOf', {
    value: { supportedLocalesOf(locales, options = undefined) { return supportedLocalesOf(locales, options); } }.supportedLocalesOf,
    writable: true, configurable: true, enumerable: false,
  });
  const proto = {
    get compare() {
      const state = stateOf(this, 'compare');
      state.bound ??= (x, y) => compare(state, String(x), String(y));
      return state.bound;
    },
    resolvedOptions() {
      const { locale, usage, sensitivity, ignorePunctuation, numeric, caseFirst } = stateOf(this, 'resolvedOptions');
      return { locale, usage, sensitivity, ignorePunctuation, collation: 'default', numeric, caseFirst };
    },
  };
  for (const key of Reflect.ownKeys(proto)) Object.defineProperty(Collator.prototype, key, { ...Object.getOwnPropertyDescriptor(proto, key), enumerable: false });
  Object.defineProperty(Collator.prototype, Symbol.toStringTag, { value: 'Intl.Collator', configurable: true });
  return Collator;
}
