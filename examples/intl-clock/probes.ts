/**
 * What issue 33 asked to run alike in wasm, in process and in Node: luxon used the ordinary way
 * (the time now in a named zone), Intl.NumberFormat for de-DE, Intl.Collator for en and de, and
 * fflate's zipSync with its defaults (whose date is the clock's: it refused 1970), and
 * jsonpath-plus (whose v-flag regexes stock quickjs-ng 0.17 refused).
 */
import { zipSync, strToU8 } from 'fflate';
import { JSONPath } from 'jsonpath-plus';
import { DateTime } from 'luxon';

/** Each probe's answer (JSON-safe). */
export async function runProbes(): Promise<Record<string, unknown>> {
  const words = ['zebra', 'Äpfel', 'apple', 'Zürich', 'éclair', 'eclair', 'Eclair', 'straße', 'strasse', 'a-b', 'ab', 'a b', 'item10', 'item9', 'Øre', 'ore'];
  const zip = zipSync({ 'hello.txt': strToU8('hello, sandbox\n') });
  return {
    paris: DateTime.now().setZone('Europe/Paris').toFormat('DDD, t'),
    utc: DateTime.now().toUTC().toISO(),
    number: new Intl.NumberFormat('de-DE').format(1234567.891),
    currency: new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(-1234.5),
    en: [...words].sort(new Intl.Collator('en').compare),
    de: [...words].sort(new Intl.Collator('de').compare),
    numeric: [...words].sort(new Intl.Collator('en', { numeric: true, sensitivity: 'base' }).compare),
    localeCompare: ['o\u0308'.localeCompare('\u00f6'), 'a'.localeCompare('B'), 'résumé'.localeCompare('resume', 'en', { sensitivity: 'base' })],
    zip: Array.from(zip, (b) => b.toString(16).padStart(2, '0')).join(''),
    jsonpath: JSONPath({ path: '$..book[?(@.price < 10)].title', json: { store: { book: [{ title: 'a', price: 8.95 }, { title: 'b', price: 12 }, { title: 'c', price: 9 }] } } }),
  };
}
