// The sandbox has no Intl (no ICU data: it would cost megabytes). What locale-sensitive methods
// do instead, so that nothing is silently wrong: with no locale, or 'en' / 'en-US', and no
// options they answer exactly as Node does for en-US (numbers grouped and rounded to 3
// decimals, dates as "1/2/2024, 3:04:05 PM" in UTC, the sandbox's only time zone); any other
// locale or any options throw a RangeError that says so. localeCompare orders ASCII text exactly
// as ICU's root collation; other text approximately (accents after base letters), with one
// warning per call. Intl itself stays undefined, so libraries that test for it fall back.

// Printable ASCII in ICU root collation order; letters share a primary weight with their capital.
const ORDER = ' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz';

const plain = (locales, options) => {
  if (options !== undefined) return false;
  const first = Array.isArray(locales) ? locales[0] : locales;
  return first === undefined || /^en(-US)?$/i.test(String(first));
};
const refuse = (method, locales, options) =>
  new RangeError(
    `${method}: the wasm sandbox has no Intl, so it formats only en-US without options (asked: ${JSON.stringify(locales ?? null)}${options === undefined ? '' : ' with options'}). Format the value yourself, or run the extension with --runtime process.`,
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
const dateText = (d) => `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
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
  return a === b ? 0 : a < b ? -1 : 1;
}

export function installLocale(G, native) {
  let warnedCall = -1;
  const warn = () => {
    const call = native.callIndex();
    if (warnedCall === call) return;
    warnedCall = call;
    native.log(2, 'String.prototype.localeCompare compared text beyond ASCII; the wasm sandbox has no Intl collation, so that order is approximate (accents after base letters, other scripts by code point). Sort with < for a fixed order, or run the extension with --runtime process.');
  };
  const method = (proto, name, fn) => Object.defineProperty(proto, name, { value: fn, writable: true, configurable: true, enumerable: false });
  method(Number.prototype, 'toLocaleString', function toLocaleString(locales, options) {
    if (!plain(locales, options)) throw refuse('Number.prototype.toLocaleString', locales, options);
    return formatNumber(Number(this.valueOf()));
  });
  method(BigInt.prototype, 'toLocaleString', function toLocaleString(locales, options) {
    if (!plain(locales, options)) throw refuse('BigInt.prototype.toLocaleString', locales, options);
    return this.toString().replace(/\B(?=(\d{3})+$)/g, ',');
  });
  const dated = (name, text) => method(Date.prototype, name, function (locales, options) {
    if (!plain(locales, options)) throw refuse(`Date.prototype.${name}`, locales, options);
    return Number.isNaN(this.getTime()) ? 'Invalid Date' : text(this);
  });
  dated('toLocaleString', (d) => `${dateText(d)}, ${timeText(d)}`);
  dated('toLocaleDateString', dateText);
  dated('toLocaleTimeString', timeText);
  method(String.prototype, 'localeCompare', function localeCompare(that, locales, options) {
    if (!plain(locales, options)) throw refuse('String.prototype.localeCompare', locales, options);
    return compare(String(this), String(that), warn);
  });
  for (const name of ['toLocaleUpperCase', 'toLocaleLowerCase']) {
    const plainCase = name === 'toLocaleUpperCase' ? String.prototype.toUpperCase : String.prototype.toLowerCase;
    method(String.prototype, name, function (locales) {
      // Only Turkish, Azeri and Lithuanian case differently from the default.
      const first = Array.isArray(locales) ? locales[0] : locales;
      if (first !== undefined && /^(tr|az|lt)\b/i.test(String(first))) throw refuse(`String.prototype.${name}`, locales);
      return plainCase.call(this);
    });
  }
  method(Array.prototype, 'toLocaleString', function toLocaleString(locales, options) {
    if (!plain(locales, options)) throw refuse('Array.prototype.toLocaleString', locales, options);
    return Array.prototype.map.call(this, (v) => (v === null || v === undefined ? '' : v.toLocaleString())).join(',');
  });
}
