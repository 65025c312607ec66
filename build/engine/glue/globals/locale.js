// The engine has no Intl (no ICU data: it would cost megabytes); `mep build` bundles one into a
// guest that uses it (build/guest/intl/), which then replaces these methods with its own. What
// the locale-sensitive methods do without it, so that nothing is silently wrong: with no locale,
// or 'en' / 'en-US', and no options they answer exactly as Node does for en-US (numbers grouped
// and rounded to 3 decimals, dates as "1/2/2024, 3:04:05 PM" in UTC, the sandbox's only time
// zone); any other locale or any options throw a RangeError that says so. localeCompare orders
// ASCII text exactly as ICU's root collation, canonically equivalent text as equal, and other
// text approximately (accents after base letters), with one warning per call. Each method has the
// shape ECMA-262 gives it: its name and length, not a constructor, and its receiver checked.

import { defineMethods } from './util.js';

// Printable ASCII in ICU root collation order; letters share a primary weight with their capital.
const ORDER = ' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz';

const plain = (locales, options) => {
  if (options !== undefined) return false;
  const first = Array.isArray(locales) ? locales[0] : locales;
  return first === undefined || /^en(-US)?$/i.test(String(first));
};
const refuse = (method, locales, options) =>
  new RangeError(
    `${method}: this guest was built without Intl, so it formats only en-US without options (asked: ${JSON.stringify(locales ?? null)}${options === undefined ? '' : ' with options'}). Rebuild with mep build (it bundles Intl when the code uses it; --locale adds a locale), format the value yourself, or run the extension with --runtime process.`,
  );

/** en-US digits of a finite number: the shortest decimal that reads back, rounded half up to 3 places, grouped. */
function formatNumber(x) {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x < 0 ? '-\u221e' : '\u221e';
  const negative = x < 0 || Object.is(x, -0);
  let [digits, exp] = Math.abs(x).toExponential().split('e');
  let int = digits.replace('.', '');
  let point = 1 + Number(exp); // digits before the decimal point
  if (point <= 0) { int = '0'.repeat(1 - point) + int; point = 1; }
  if (int.length < point) int += '0'.repeat(point - int.length);
  let whole = int.slice(0, point), frac = int.slice(point);
  if (frac.length > 3) {
    const up = frac.charCodeAt(3) >= 0x35;
    frac = frac.slice(0, 3);
    if (up) {
      const n = (BigInt(whole + frac) + 1n).toString().padStart(whole.length + 3, '0');
      whole = n.slice(0, n.length - 3);
      frac = n.slice(n.length - 3);
    }
  }
  frac = frac.replace(/0+$/, '');
  whole = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+$)/g, ',');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

const pad = (n) => String(n).padStart(2, '0');
const dayText = (d) => `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
const timeText = (d) => { const h = d.getUTCHours(); return `${h % 12 || 12}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`; };

// A collation key: primary weights of every character, then case (lowercase first), then the text.
function compare(a, b, warn) {
  const key = (s) => {
    const primary = [], tertiary = [];
    for (const ch of s.normalize('NFD')) {
      const cp = ch.codePointAt(0);
      if (cp < 0x20 || cp === 0x7f) continue; // ignorable
      if (cp >= 0x300 && cp <= 0x36f) { tertiary.push(1000 + cp); continue; } // combining marks weigh after case
      const lower = ch.toLowerCase();
      const i = ORDER.indexOf(lower.length === 1 ? lower : ch);
      if (i < 0) warn();
      primary.push(i >= 0 ? i : ORDER.length + cp);
      tertiary.push(ch === lower ? 0 : 1);
    }
    return [primary, tertiary];
  };
  const [pa, ta] = key(a), [pb, tb] = key(b);
  for (const [x, y] of [[pa, pb], [ta, tb]]) {
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  }
  return 0; // equal at every level, as ICU's default strength (canonically equivalent text is equal)
}

export function installLocale(G, native) {
  let warnedCall = -1;
  const warn = () => {
    const call = native.callIndex();
    if (warnedCall === call) return;
    warnedCall = call;
    native.log(2, 'String.prototype.localeCompare compared text beyond ASCII; this guest was built without Intl, so that order is approximate (accents after base letters, other scripts by code point). Sort with < for a fixed order, or build with mep build, which bundles Intl.Collator when the code uses it.');
  };
  // Receivers as ECMA-262 checks them: thisNumberValue, thisBigIntValue, thisTimeValue, RequireObjectCoercible.
  const numberOf = Number.prototype.valueOf, bigintOf = BigInt.prototype.valueOf, timeOf = Date.prototype.getTime;
  const coercible = (that, name) => {
    if (that === undefined || that === null) throw new TypeError(`String.prototype.${name} called on null or undefined`);
    return String(that);
  };
  const dateMethod = (name, text) => ({
    [name](locales = undefined, options = undefined) {
      const t = timeOf.call(this);
      if (!plain(locales, options)) throw refuse(`Date.prototype.${name}`, locales, options);
      return Number.isNaN(t) ? 'Invalid Date' : text(new Date(t));
    },
  })[name];
  const caseMethod = (name, plainCase) => ({
    [name](locales = undefined) {
      const s = coercible(this, name);
      // Only Turkish, Azeri and Lithuanian case differently from the default.
      const first = Array.isArray(locales) ? locales[0] : locales;
      if (first !== undefined && /^(tr|az|lt)\b/i.test(String(first))) throw refuse(`String.prototype.${name}`, locales);
      return plainCase.call(s);
    },
  })[name];
  // Methods, not functions: they have no prototype and cannot be called with new. Parameters with
  // defaults do not count in `length`, which is ECMA-262's (0, and 1 for localeCompare).
  defineMethods(Number.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      const x = numberOf.call(this);
      if (!plain(locales, options)) throw refuse('Number.prototype.toLocaleString', locales, options);
      return formatNumber(x);
    },
  });
  defineMethods(BigInt.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      const x = bigintOf.call(this);
      if (!plain(locales, options)) throw refuse('BigInt.prototype.toLocaleString', locales, options);
      return x.toString().replace(/\B(?=(\d{3})+$)/g, ',');
    },
  });
  defineMethods(Date.prototype, {
    toLocaleString: dateMethod('toLocaleString', (d) => `${dayText(d)}, ${timeText(d)}`),
    toLocaleDateString: dateMethod('toLocaleDateString', dayText),
    toLocaleTimeString: dateMethod('toLocaleTimeString', timeText),
  });
  defineMethods(String.prototype, {
    localeCompare(that, locales = undefined, options = undefined) {
      const s = coercible(this, 'localeCompare');
      const t = String(that);
      if (!plain(locales, options)) throw refuse('String.prototype.localeCompare', locales, options);
      return compare(s, t, warn);
    },
    toLocaleUpperCase: caseMethod('toLocaleUpperCase', String.prototype.toUpperCase),
    toLocaleLowerCase: caseMethod('toLocaleLowerCase', String.prototype.toLowerCase),
  });
  defineMethods(Array.prototype, {
    // ECMA-262 without Intl: each element's own toLocaleString, called without arguments. A locale
    // or options asked for a number or a date would be ignored, so they are refused instead.
    toLocaleString(locales = undefined, options = undefined) {
      if (this === undefined || this === null) throw new TypeError('Array.prototype.toLocaleString called on null or undefined');
      const list = Object(this);
      const n = Math.min(Math.max(Math.trunc(Number(list.length)) || 0, 0), Number.MAX_SAFE_INTEGER);
      const sensitive = !plain(locales, options);
      let out = '';
      for (let i = 0; i < n; i++) {
        if (i > 0) out += ',';
        const v = list[i];
        if (v === undefined || v === null) continue;
        if (sensitive && (typeof v === 'number' || typeof v === 'bigint' || v instanceof Number || v instanceof Date)) throw refuse('Array.prototype.toLocaleString', locales, options);
        out += String(v.toLocaleString());
      }
      return out;
    },
  });
}

