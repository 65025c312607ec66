/**
 * The one way the host reads a JSON file of its own or of a package or project (the lock, the
 * configuration, `extension.json`, `morphir.json`, the publish journal): a bounded regular file
 * (regular-file.ts), parsed with the host's one parser under the file's key policy
 * (protocol/json-parse.ts), every failure typed and naming the file. Node edge.
 */
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { DuplicateKeyError, HostileKeyError, parseJson } from '../protocol/json-parse.ts';
import { JsonText, JsonTextError } from '../protocol/json-text.ts';
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
    if (error instanceof DuplicateKeyError) {
      throw new MepError(options.code ?? LocalErrorCode.Usage, `${capitalized(options.what)} ${path} is refused: ${error.message}; nothing was read from it. Keep one of the two.${remedy}`, {
        data: { file: path, reason: 'duplicate-key', key: error.key, at: error.path.join('.') },
      });
    }
    if (error instanceof HostileKeyError) {
      throw new MepError(options.code ?? LocalErrorCode.Usage, `${capitalized(options.what)} ${path} is refused: ${error.message}; nothing was read from it.${remedy}`, {
        data: { file: path, reason: 'hostile-key', key: error.key, at: error.path.join('.') },
      });
    }
    throw new MepError(options.code ?? LocalErrorCode.Usage, `${capitalized(options.what)} ${path} is not valid JSON (${jsonProblem(text)}).${remedy}`, {
      data: { file: path, reason: 'not-json' },
      cause: error,
    });
  }
}

/**
 * Where and what the first problem of `text` (not JSON) is, without any of its text: V8's
 * SyntaxError quotes a short text whole and a longer one's first ten characters, and a file read
 * through a link (a cloned project's `morphir.json -> ~/.config/gh/token`) may be any file of
 * the user's, shown in a terminal or a CI log.
 */
function jsonProblem(text: string): string {
  if (text.charCodeAt(0) === 0xfeff) return 'it starts with a byte order mark (U+FEFF); save it as UTF-8 without one';
  try {
    JsonText.parse(text);
  } catch (error) {
    if (error instanceof JsonTextError) return error.message.replace(/, found ".*" at line/s, ' at line');
  }
  return 'not one JSON value';
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
