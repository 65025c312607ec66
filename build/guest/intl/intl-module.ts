/**
 * Intl for a wasm guest that uses it (issue 33). The engine has none (ICU's data would cost
 * every guest megabytes), so `mep build` looks at the bundle and, when it reaches for `Intl`,
 * `toLocale*String` or `localeCompare`, adds the services it names — the @formatjs polyfills
 * (runtime dependencies of mep-runtime) with CLDR data for the locales the author asks for
 * (always `en`), IANA data for the time zones it names or asks for, and a Collator over this
 * Node's collation order (collation.ts) — plus runtime/install.js, which refuses a locale or zone
 * not built in instead of answering for another. A guest that uses none of it carries nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import type * as esbuild from 'esbuild';
import { LocalErrorCode, MepError } from '../../../host/src/protocol/errors.ts';
import { collationTable, type CollationTable } from './collation.ts';

/** The author's choices: locales beyond `en`, and time zones beyond those the code names. */
export interface IntlOptions {
  /** BCP 47 tags, e.g. `de-DE` (`mep build --locale`). */
  locales?: readonly string[];
  /** IANA names, or `all` (`mep build --time-zone`). */
  timeZones?: readonly string[] | 'all';
}

/** What a bundle uses of Intl, and what the build adds for it. */
export interface IntlPlan {
  /** The services bundled (their polyfills), e.g. `NumberFormat`. */
  services: string[];
  /** The locales with data (CLDR's names, e.g. `de` for `de-DE`). */
  locales: string[];
  /** The time zones with data, or `all`. */
  timeZones: string[] | 'all';
}

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
/** The virtual module the bundle imports first. */
export const INTL_MODULE = 'mep:intl';
/** Services in the order their polyfills must load (each after what it uses). */
const ORDER = ['getCanonicalLocales', 'Locale', 'PluralRules', 'NumberFormat', 'DateTimeFormat', 'RelativeTimeFormat', 'ListFormat', 'DisplayNames', 'Segmenter', 'supportedValuesOf', 'Collator'] as const;
type Service = (typeof ORDER)[number];
/** The @formatjs package of each polyfilled service (the Collator is ours). */
const PACKAGE: Partial<Record<Service, string>> = {
  getCanonicalLocales: '@formatjs/intl-getcanonicallocales', Locale: '@formatjs/intl-locale', PluralRules: '@formatjs/intl-pluralrules',
  NumberFormat: '@formatjs/intl-numberformat', DateTimeFormat: '@formatjs/intl-datetimeformat', RelativeTimeFormat: '@formatjs/intl-relativetimeformat',
  ListFormat: '@formatjs/intl-listformat', DisplayNames: '@formatjs/intl-displaynames', Segmenter: '@formatjs/intl-segmenter', supportedValuesOf: '@formatjs/intl-supportedvaluesof',
};
/** What each service needs of the others at run time. */
const NEEDS: Partial<Record<Service, Service[]>> = { NumberFormat: ['PluralRules'], RelativeTimeFormat: ['NumberFormat', 'PluralRules'], DateTimeFormat: ['NumberFormat'] };
const ALWAYS: Service[] = ['getCanonicalLocales', 'Locale'];

const word = (name: string): RegExp => new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}($|[^\\w$])`);

/**
 * The services `code` (a bundle) uses: those `Intl.X` names it mentions, the number and date
 * formats behind `toLocale*String`, the Collator behind `localeCompare`. Empty: it needs no Intl.
 */
export function intlServices(code: string): string[] {
  const used = new Set<Service>();
  if (word('Intl').test(code)) for (const s of ORDER) if (word(s).test(code)) used.add(s);
  if (word('toLocaleString').test(code)) used.add('NumberFormat').add('DateTimeFormat');
  if (word('toLocaleDateString').test(code) || word('toLocaleTimeString').test(code)) used.add('DateTimeFormat');
  if (word('localeCompare').test(code)) used.add('Collator');
  if (used.size === 0) return [];
  // What the services need, and what that needs in turn.
  for (let grew = true; grew; ) {
    const before = used.size;
    for (const s of [...used]) for (const n of NEEDS[s] ?? []) used.add(n);
    grew = used.size > before;
  }
  for (const s of ALWAYS) used.add(s);
  return ORDER.filter((s) => used.has(s));
}

/** The locale-data file names (without `.js`) of a package. */
function localeFiles(pkg: string): Set<string> {
  const dir = join(dirname(require.resolve(`${pkg}/polyfill-force.js`)), 'locale-data');
  return new Set(readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)));
}

/** ECMA-402's BestAvailableLocale over file names (the longest prefix of `tag` that has data). */
function bestFile(files: Set<string>, tag: string): string | undefined {
  for (let c = tag.replace(/-(u|x|t)-.*$/i, ''); ; ) {
    if (files.has(c)) return c;
    const cut = c.lastIndexOf('-');
    if (cut < 0) return undefined;
    c = c.slice(0, cut);
  }
}

/** The packed IANA data of the DateTimeFormat polyfill: one string per zone, `Name|…`. */
interface TzData {
  abbrvs: string;
  offsets: string;
  zones: string[];
}
let tzCache: TzData | undefined;
/** The IANA data the DateTimeFormat polyfill ships (all zones), read once. */
function tzData(): TzData {
  if (tzCache) return tzCache;
  const box: { data?: TzData } = {};
  const source = readFileSync(require.resolve('@formatjs/intl-datetimeformat/add-all-tz.js'), 'utf8');
  runInNewContext(source, { Intl: { DateTimeFormat: { __addTZData: (d: TzData) => (box.data = d) } } });
  const data = box.data;
  if (!data) throw new MepError(LocalErrorCode.Build, '@formatjs/intl-datetimeformat/add-all-tz.js did not give its time zone data; reinstall mep-runtime');
  return (tzCache = data);
}

/** The IANA names `code` spells in string literals (`'Europe/Paris'`), of those in `known`. */
function namedZones(code: string, known: Set<string>): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/["'`]([A-Z][A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+)["'`]/g)) if (known.has(m[1]!)) found.add(m[1]!);
  return [...found].sort();
}

/**
 * The plan and the source of the module that installs Intl for `code`, or undefined when the
 * bundle uses none. Throws MepError(ERR_USAGE) for a locale or zone CLDR and IANA do not know.
 */
export function intlModule(code: string, options: IntlOptions = {}): { plan: IntlPlan; source: string; resolveDir: string } | undefined {
  const services = intlServices(code);
  if (services.length === 0) return undefined;
  const numberLocales = localeFiles(PACKAGE.NumberFormat!);
  const requested = ['en', ...(options.locales ?? [])];
  const canonical = requested.map((tag) => {
    let c: string[];
    try {
      c = Intl.getCanonicalLocales(tag);
    } catch {
      c = [];
    }
    const best = c[0] === undefined ? undefined : bestFile(numberLocales, c[0]);
    if (best === undefined) throw new MepError(LocalErrorCode.Usage, `--locale ${tag}: CLDR has no data for it; pass a BCP 47 tag such as de-DE or fr`, { data: { locale: tag } });
    return best;
  });
  const locales = [...new Set(canonical)];
  const tz = tzData();
  const names = new Map(tz.zones.map((z) => [z.slice(0, z.indexOf('|')), z]));
  let timeZones: string[] | 'all' = 'all';
  if (options.timeZones !== 'all') {
    for (const z of options.timeZones ?? []) if (!names.has(z)) throw new MepError(LocalErrorCode.Usage, `--time-zone ${z}: not an IANA time zone name (such as Europe/Paris), nor 'all'`, { data: { timeZone: z } });
    timeZones = [...new Set([...namedZones(code, new Set(names.keys())), ...(options.timeZones ?? [])])].sort();
  }
  const lines: string[] = [];
  for (const s of services) {
    const pkg = PACKAGE[s as Service];
    if (!pkg) continue;
    lines.push(`import '${pkg}/polyfill-force.js';`);
    const files = existsSync(join(dirname(require.resolve(`${pkg}/polyfill-force.js`)), 'locale-data')) ? localeFiles(pkg) : undefined; // Locale, Segmenter, … have none
    if (files) for (const l of new Set(locales.map((l) => bestFile(files, l)).filter((f) => f !== undefined))) lines.push(`import '${pkg}/locale-data/${l}.js';`);
  }
  lines.push(`import { installIntl } from ${JSON.stringify(join(here, 'runtime', 'install.js'))};`);
  if (services.includes('DateTimeFormat')) {
    const zones = timeZones === 'all' ? tz.zones : timeZones.map((z) => names.get(z)!);
    lines.push(`Intl.DateTimeFormat.__addTZData(${JSON.stringify({ abbrvs: tz.abbrvs, offsets: tz.offsets, zones })});`);
  }
  const collation: Record<string, CollationTable> | undefined = services.includes('Collator') ? Object.fromEntries(locales.map((l) => [l, cachedTable(l)])) : undefined;
  const config = {
    defaultLocale: 'en-US',
    built: locales,
    all: [...numberLocales].join(','),
    zones: timeZones === 'all' ? null : timeZones,
    allZones: [...names.keys()].join(','),
    collation,
  };
  lines.push(`installIntl(Intl, ${JSON.stringify(config)});`);
  return { plan: { services, locales, timeZones }, source: `${lines.join('\n')}\n`, resolveDir: here };
}

const tables = new Map<string, CollationTable>();
const cachedTable = (locale: string): CollationTable => {
  let t = tables.get(locale);
  if (!t) tables.set(locale, (t = collationTable(locale)));
  return t;
};

/** The esbuild plugin that serves {@link INTL_MODULE}. */
export function intlPlugin(module: { source: string; resolveDir: string }): esbuild.Plugin {
  return {
    name: 'mep-intl',
    setup(build) {
      build.onResolve({ filter: /^mep:intl$/ }, () => ({ path: INTL_MODULE, namespace: 'mep-intl' }));
      build.onLoad({ filter: /.*/, namespace: 'mep-intl' }, () => ({ contents: module.source, loader: 'js', resolveDir: module.resolveDir }));
    },
  };
}
