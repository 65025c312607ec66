// The guest side of Intl (issue 33), run once at the bundle's top level (so inside the build's
// snapshot) after the @formatjs polyfills and their locale data: every Intl service checks that
// the locale it resolves to and the time zone it is given are built in — the answer would
// otherwise silently be another locale's — and throws a RangeError naming the `mep build` flag
// that adds it (with a warning in the log too, for libraries that swallow the error). Adds the
// Collator (collator.js), puts `en-US` as the default locale as in Node, and gives the locale
// methods ECMA-402's behaviour with ECMA-262's shape.
import { makeCollator } from './collator.js';

const SERVICES = ['NumberFormat', 'DateTimeFormat', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'DisplayNames', 'Segmenter'];
// Zones every DateTimeFormat knows without data (ECMA-402: UTC and its aliases; offsets).
const ALWAYS = /^(utc|etc\/utc|etc\/gmt|gmt|[+-]\d{2}(:?\d{2})?)$/i;

/** Strips Unicode extensions (-u-…) and private use (-x-…), which do not pick locale data. */
const bare = (tag) => tag.replace(/-(u|x|t)-.*$/i, '');
/** ECMA-402 BestAvailableLocale: the longest prefix of `tag` in `set`, or undefined. */
function bestAvailable(set, tag) {
  for (let candidate = bare(tag); ; ) {
    if (set.has(candidate)) return candidate;
    const cut = candidate.lastIndexOf('-');
    if (cut < 0) return undefined;
    candidate = candidate.slice(0, cut >= 2 && candidate[cut - 2] === '-' ? cut - 2 : cut);
  }
}

/**
 * Installs the checks, the Collator and the locale methods on `Intl` (the polyfills' global).
 * `config`: `defaultLocale`, `built` (the locales with data), `all` (every locale CLDR has, comma
 * separated), `zones` (the built zones, or null for all), `allZones` (comma separated),
 * `collation` (locale -> table, when the bundle compares text).
 */
export function installIntl(Intl, config) {
  const built = new Set(config.built);
  const all = new Set(config.all.split(','));
  const zones = config.zones === null ? null : new Set(config.zones.map((z) => z.toLowerCase()));
  const allZones = new Set(config.allZones.split(',').map((z) => z.toLowerCase()));
  let warned = '';
  const refuse = (text) => {
    // One log line per refusal in a row: a library that catches the error still leaves a trace.
    if (warned !== text) console.warn(text);
    warned = text;
    return new RangeError(text);
  };
  memoizeCanonical(Intl);
  const canonical = (locales) => (locales === undefined ? [] : Intl.getCanonicalLocales(locales));
  /** The locale a service resolves to, or a RangeError when CLDR has it and this build does not. */
  const resolve = (locales, service) => {
    for (const tag of canonical(locales)) {
      const cldr = bestAvailable(all, tag);
      if (cldr === undefined) continue; // no CLDR data anywhere: the next one, then the default
      if (bestAvailable(built, tag) === cldr) return tag;
      throw refuse(`Intl.${service}: the locale ${tag} is not built into this extension (built in: ${[...built].join(', ')}); rebuild it with mep build --locale ${tag} (or buildGuest({ intl: { locales } }))`);
    }
    return config.defaultLocale;
  };
  const checkZone = (options) => {
    if (options === undefined || options === null) return;
    const zone = Object(options).timeZone;
    if (zone === undefined || zones === null) return;
    const name = String(zone).toLowerCase();
    if (ALWAYS.test(name) || zones.has(name) || !allZones.has(name)) return; // an unknown name is the polyfill's RangeError
    throw refuse(`Intl.DateTimeFormat: the time zone ${zone} is not built into this extension; rebuild it with mep build --time-zone ${zone} (or --time-zone all)`);
  };
  for (const name of SERVICES) {
    const Poly = Intl[name];
    if (typeof Poly !== 'function') continue;
    if ('__defaultLocale' in Poly) Poly.__defaultLocale = config.defaultLocale;
    // A function, as ECMA-402's constructors are: NumberFormat and DateTimeFormat may be called
    // without new, and the others refuse that themselves.
    const Service = function (locales = undefined, options = undefined) {
      resolve(locales, name);
      if (name === 'DateTimeFormat') checkZone(options);
      return new.target === undefined ? Poly(locales, options) : Reflect.construct(Poly, [locales, options], new.target);
    };
    Object.defineProperties(Service, { name: { value: name }, length: { value: Poly.length }, prototype: { value: Poly.prototype } });
    for (const key of Reflect.ownKeys(Poly)) if (!['length', 'name', 'prototype'].includes(key)) Object.defineProperty(Service, key, Object.getOwnPropertyDescriptor(Poly, key));
    Object.defineProperty(Poly.prototype, 'constructor', { value: Service, writable: true, configurable: true, enumerable: false });
    Object.defineProperty(Intl, name, { value: Service, writable: true, configurable: true, enumerable: false });
  }
  if (Intl.DateTimeFormat) plainSpaces(Intl.DateTimeFormat.prototype);
  if (config.collation) {
    let collatorWarned = false;
    const Collator = makeCollator({
      resolve,
      tables: config.collation,
      supportedLocalesOf: (locales) => canonical(locales).filter((tag) => bestAvailable(built, tag) !== undefined),
      warn() {
        if (collatorWarned) return;
        collatorWarned = true;
        console.warn('Intl.Collator compared text beyond the Latin, Greek and Cyrillic repertoire built into this extension: that text is ordered by code point after it, which may differ from Node.');
      },
    });
    Object.defineProperty(Intl, 'Collator', { value: Collator, writable: true, configurable: true, enumerable: false });
  }
  installLocaleMethods(Intl, resolve, checkZone);
  // The polyfills build their data lazily on first use (the time zones, matched locales, the
  // segmenter's rules): done here for every built locale, it happens once, in the snapshot,
  // instead of in every instance's first call.
  for (const locale of [undefined, config.defaultLocale, ...config.built]) {
    if (Intl.DateTimeFormat) new Intl.DateTimeFormat(locale, { timeZone: 'UTC', dateStyle: 'full', timeStyle: 'full' }).format(0);
    if (Intl.DateTimeFormat) new Date(0).toLocaleString(locale);
    if (Intl.NumberFormat) new Intl.NumberFormat(locale).format(1.5);
    if (Intl.PluralRules) new Intl.PluralRules(locale).select(1);
    if (Intl.Collator) new Intl.Collator(locale).compare('a', 'b');
    if (Intl.Segmenter) [...new Intl.Segmenter(locale, { granularity: 'word' }).segment('a b.')];
  }
}

const spaced = (text) => text.replace(/\u202f/g, ' ');

/**
 * V8 writes the space before AM/PM (and in other time formats) as a plain space where CLDR has a
 * narrow no-break space (U+202F), for the web's sake; the polyfill follows CLDR. Node's answers
 * are the goal, so the formats of DateTimeFormat give V8's spaces.
 */
function plainSpaces(proto) {
  const bound = new WeakMap();
  const format = Object.getOwnPropertyDescriptor(proto, 'format');
  Object.defineProperty(proto, 'format', {
    ...format,
    get: Object.getOwnPropertyDescriptor({
      get format() {
        const inner = format.get.call(this);
        if (!bound.has(this)) bound.set(this, (date) => spaced(inner(date)));
        return bound.get(this);
      },
    }, 'format').get,
  });
  for (const name of ['formatToParts', 'formatRange', 'formatRangeToParts']) {
    const polyfilled = proto[name];
    if (typeof polyfilled !== 'function') continue;
    const method = {
      [name](...args) {
        const out = polyfilled.apply(this, args);
        return typeof out === 'string' ? spaced(out) : out.map((part) => ({ ...part, value: spaced(part.value) }));
      },
    }[name];
    Object.defineProperty(method, 'length', { value: polyfilled.length });
    Object.defineProperty(proto, name, { value: method, writable: true, configurable: true, enumerable: false });
  }
}

/**
 * Intl.getCanonicalLocales remembers its answers for strings: the polyfill takes tens of ms a call
 * in the sandbox, and every service calls it on each construction with the same few tags.
 */
function memoizeCanonical(Intl) {
  const polyfilled = Intl.getCanonicalLocales;
  const known = new Map();
  const method = {
    getCanonicalLocales(locales) {
      const key = typeof locales === 'string' ? locales : Array.isArray(locales) && locales.every((l) => typeof l === 'string') ? locales.join('\0') : undefined;
      if (key === undefined) return polyfilled(locales);
      let answer = known.get(key);
      if (answer === undefined) known.set(key, (answer = polyfilled(locales)));
      return [...answer];
    },
  }.getCanonicalLocales;
  Object.defineProperty(method, 'length', { value: polyfilled.length });
  Object.defineProperty(Intl, 'getCanonicalLocales', { value: method, writable: true, configurable: true, enumerable: false });
}

/** The locale methods with ECMA-402's behaviour, defined as ECMA-262 shapes them (methods, length 0 or 1). */
function installLocaleMethods(Intl, resolve, checkZone) {
  const define = (proto, methods) => {
    for (const key of Object.keys(methods)) Object.defineProperty(proto, key, { value: methods[key], writable: true, configurable: true, enumerable: false });
  };
  const numberOf = Number.prototype.valueOf, bigintOf = BigInt.prototype.valueOf;
  if (Intl.NumberFormat) {
    define(Number.prototype, { toLocaleString(locales = undefined, options = undefined) { const x = numberOf.call(this); return new Intl.NumberFormat(locales, options).format(x); } });
    define(BigInt.prototype, { toLocaleString(locales = undefined, options = undefined) { const x = bigintOf.call(this); return new Intl.NumberFormat(locales, options).format(x); } });
  }
  if (Intl.DateTimeFormat) {
    // The polyfill's own methods apply ECMA-402's ToDateTimeOptions defaults; these check first.
    const dated = (name) => {
      const polyfilled = Date.prototype[name];
      return { [name](locales = undefined, options = undefined) { resolve(locales, 'DateTimeFormat'); checkZone(options); return spaced(polyfilled.call(this, locales, options)); } }[name];
    };
    define(Date.prototype, { toLocaleString: dated('toLocaleString'), toLocaleDateString: dated('toLocaleDateString'), toLocaleTimeString: dated('toLocaleTimeString') });
  }
  if (Intl.Collator) {
    let plain;
    define(String.prototype, {
      localeCompare(that, locales = undefined, options = undefined) {
        if (this === undefined || this === null) throw new TypeError('String.prototype.localeCompare called on null or undefined');
        const s = String(this), t = String(that);
        const collator = locales === undefined && options === undefined ? (plain ??= new Intl.Collator()) : new Intl.Collator(locales, options);
        return collator.compare(s, t);
      },
    });
  }
  define(Array.prototype, {
    toLocaleString(locales = undefined, options = undefined) {
      if (this === undefined || this === null) throw new TypeError('Array.prototype.toLocaleString called on null or undefined');
      const list = Object(this);
      const n = Math.min(Math.max(Math.trunc(Number(list.length)) || 0, 0), Number.MAX_SAFE_INTEGER);
      let out = '';
      for (let i = 0; i < n; i++) {
        if (i > 0) out += ',';
        const v = list[i];
        if (v !== undefined && v !== null) out += String(v.toLocaleString(locales, options));
      }
      return out;
    },
  });
}
