/** Parsing of repeated `--option key=value` flags. */
import { UsageError } from '../exit-codes.ts';
import { addOption } from '../../protocol/option-value.ts';
import { readRegularFileSync } from '../../files/regular-file.ts';
import { HOST_FILE_LIMITS } from '../../protocol/limits.ts';
import { resolve } from 'node:path';

/** The text of the file an `--option key=@file` names; ERR_USAGE naming the option when it cannot be read. */
function optionFile(key: string, path: string, cwd: string): string {
  if (path === '') throw new UsageError(`--option ${key}=@ needs a file name after @ (write @@ for a literal @)`);
  return readRegularFileSync(resolve(cwd, path), { what: `the file of --option ${key}`, maxBytes: HOST_FILE_LIMITS.smallFileBytes }).toString('utf8');
}

/**
 * `key=value` pairs into an options object. A value is parsed as JSON when it is valid JSON
 * (`--option logical_types=false`, `--option 'type_mappings={…}'`), else kept as a string.
 * `key=@file` takes the value from the file (relative to `cwd`; a regular file of at most
 * {@link HOST_FILE_LIMITS.smallFileBytes}), read by the same rule; `key=@@text` is the literal `@text`.
 */
export function parseOptionFlags(pairs: readonly string[], cwd: string = process.cwd()): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--option expects key=value, got ${JSON.stringify(pair)}`);
    const key = pair.slice(0, eq);
    const given = pair.slice(eq + 1);
    const raw = given.startsWith('@@') ? given.slice(1) : given.startsWith('@') ? optionFile(key, given.slice(1), cwd) : given;
    if (!addOption(options, key, raw, given.startsWith('@@'))) throw new UsageError(`--option ${key} is given twice`);
  }
  return options;
}
