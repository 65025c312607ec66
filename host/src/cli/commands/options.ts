/** Parsing of repeated `--option key=value` flags. */
import { UsageError } from '../exit-codes.ts';
import { parseJson } from '../../protocol/json-parse.ts';

/**
 * `key=value` pairs into an options object. A value is parsed as JSON when it is valid JSON
 * (`--option logical_types=false`, `--option 'type_mappings={…}'`), else kept as a string.
 */
export function parseOptionFlags(pairs: readonly string[]): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option expects key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    if (Object.hasOwn(options, key)) throw new UsageError(`--option ${key} is given twice`);
    let value: unknown = raw;
    try {
      value = parseJson(raw, 'data');
    } catch {
      // Not JSON: the value is the plain string, as documented.
    }
    // A key is data: `__proto__` stays an own option, never the object's prototype.
    Object.defineProperty(options, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return options;
}
