/** Parsing of repeated `--option key=value` flags. */
import { UsageError } from '../exit-codes.ts';

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
      value = JSON.parse(raw);
    } catch {
      // Not JSON: the value is the plain string, as documented.
    }
    options[key] = value;
  }
  return options;
}
