import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collationTable } from './collation.ts';
import { intlModule, intlServices } from './intl-module.ts';

const Detect = suite('guest intl :: what a bundle uses');

Detect('should find the services a bundle names, and nothing in one that uses none', () => {
  assert.equal(intlServices('const x = 1 + 2; console.log(String(x));'), []);
  assert.equal(intlServices('var Intl2 = 1; obj.toLocaleStringX();'), []);
  assert.equal(intlServices('new Intl.PluralRules("en")'), ['getCanonicalLocales', 'Locale', 'PluralRules']);
  assert.equal(intlServices('a.localeCompare(b)'), ['getCanonicalLocales', 'Locale', 'Collator']);
  assert.equal(intlServices('n.toLocaleString()'), ['getCanonicalLocales', 'Locale', 'PluralRules', 'NumberFormat', 'DateTimeFormat']);
  assert.equal(intlServices('new Intl.RelativeTimeFormat()'), ['getCanonicalLocales', 'Locale', 'PluralRules', 'NumberFormat', 'RelativeTimeFormat']);
  assert.equal(intlServices('d.toLocaleDateString()'), ['getCanonicalLocales', 'Locale', 'PluralRules', 'NumberFormat', 'DateTimeFormat'], 'what a service needs, transitively');
});

Detect('should build in en, the locales asked for and the zones the code names, and refuse unknown ones :: hostile', () => {
  const m = intlModule('new Intl.DateTimeFormat("en", { timeZone: "Europe/Paris" }); zone = "Not/AZone";', { locales: ['de-DE'], timeZones: ['Asia/Tokyo'] })!;
  assert.equal(m.plan.locales, ['en', 'de']);
  assert.equal(m.plan.timeZones, ['Asia/Tokyo', 'Europe/Paris']);
  assert.match(m.source, /intl-datetimeformat\/locale-data\/de\.js/);
  assert.is(intlModule('plain code'), undefined);
  for (const bad of [{ locales: ['not a locale!'] }, { locales: ['xx-YY'] }, { timeZones: ['Mars/Olympus'] }]) {
    try {
      intlModule('new Intl.DateTimeFormat()', bad);
      assert.unreachable(JSON.stringify(bad));
    } catch (e) {
      assert.is((e as { code?: string }).code, 'ERR_USAGE', JSON.stringify(bad));
    }
  }
});

Detect("should derive a collation table that orders as this Node's ICU", () => {
  const table = collationTable('en');
  const el = (c: string) => table.elements[c]!.split(',').map((e) => e.split('.').map(Number));
  assert.is(el('a')[0]![0], el('A')[0]![0], 'a and A share a primary');
  assert.ok(el('A')[0]![2]! > el('a')[0]![2]!, 'A after a at the tertiary level');
  assert.equal(el('ß').map((e) => e[0]), el('s').concat(el('s')).map((e) => e[0]), 'ß expands to ss');
  assert.is(el('\u0308')[0]![0], 0, 'a combining mark has no primary');
  assert.ok(table.variable.includes('-') && !table.variable.includes('$'), 'punctuation is variable, symbols are not');
});

Detect.run();
