/**
 * The one way the host reads a JSON file of its own or of a package or project (the lock, the
 * configuration, `extension.json`, `morphir.json`, the publish journal): a bounded regular file
 * (regular-file.ts), parsed with the host's one parser under the file's key policy
 * (protocol/json-parse.ts), every failure typed and naming the file. Node edge.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HostileKeyError, parseJson } from '../protocol/json-parse.ts';
import type { JsonKeyPolicy } from '../protocol/json-parse.ts';
import { readRegularFile } from './regular-file.ts';
import type { RegularFileOptions } from './regular-file.ts';

/** How to read one JSON file: {@link RegularFileOptions} and how its keys are read. */
export interface JsonFileOptions extends RegularFileOptions {
  /** Default: fixed keys everywhere (a hostile key anywhere is refused). */
  keys?: JsonKeyPolicy;
  /** What to do about a bad file, ending the message (`Restore it or reinstall the extensions`). */
  remedy?: string;
}

/**
 * Parses `text`, the content of the file `path`, or throws MepError (the options' code) with
 * `data.reason` `not-json` or `hostile-key` (`data.key`, `data.at`).
 */
export function parseJsonFile(path: string, text: string, options: Omit<JsonFileOptions, 'maxBytes'>): unknown {
  try {
    return parseJson(text, options.keys);
  } catch (error) {
    const remedy = options.remedy ? ` ${options.remedy}` : '';
    if (error instanceof HostileKeyError) {
      throw new MepError(options.code ?? LocalErrorCode.Usage, `${capitalized(options.what)} ${path} is refused: ${error.message}; nothing was read from it.${remedy}`, {
        data: { file: path, reason: 'hostile-key', key: error.key, at: error.path.join('.') },
      });
    }
    throw new MepError(options.code ?? LocalErrorCode.Usage, `${capitalized(options.what)} ${path} is not valid JSON (${(error as Error).message}).${remedy}`, {
      data: { file: path, reason: 'not-json' },
      cause: error,
    });
  }
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Reads and parses the JSON file `path`; see {@link parseJsonFile} and `readRegularFile` for
 * what it refuses and how.
 *
 * @example
 * const doc = await readJsonFile(path, { what: 'the configuration', maxBytes: HOST_FILE_LIMITS.smallFileBytes, keys: { dataAt: (p) => p[0] === 'secrets' } });
 */
export async function readJsonFile(path: string, options: JsonFileOptions): Promise<unknown> {
  return parseJsonFile(path, (await readRegularFile(path, options)).toString('utf8'), options);
}
