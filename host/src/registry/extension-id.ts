/**
 * The one definition of a plain extension id. An id names a directory (`extensions/<id>/`), a
 * lock key and a configuration key, so it must be a single portable path segment: every
 * command and library function that turns an id into a path takes an {@link ExtensionId},
 * which only {@link parseExtensionId} (or the manifest schema) makes, before any filesystem call.
 */
import * as z from 'zod';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOSTILE_KEYS } from '../protocol/json-parse.ts';

/** Longest id accepted: well under every filesystem's 255-byte name limit. */
export const MAX_EXTENSION_ID_LENGTH = 128;

const CHARACTERS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// Windows opens these as devices whatever follows the first dot (`con.acme` is `CON`).
const DEVICE_NAMES = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** What the rule says, for messages: the shape of every valid id. */
export const EXTENSION_ID_RULE = `letters, digits, ".", "_" and "-", starting with a letter or digit, at most ${MAX_EXTENSION_ID_LENGTH} characters (e.g. acme.crm)`;

/** Why `value` is not a plain id, or undefined when it is one. */
export function extensionIdProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'is not a string';
  if (value === '') return 'is empty';
  if (value.length > MAX_EXTENSION_ID_LENGTH) return `is ${value.length} characters long (at most ${MAX_EXTENSION_ID_LENGTH})`;
  if (!CHARACTERS.test(value)) {
    if (/[/\\]/.test(value)) return 'contains a path separator';
    if (value.startsWith('.')) return 'starts with "."';
    return 'contains a character other than letters, digits, ".", "_" and "-", or does not start with a letter or digit';
  }
  // Windows drops trailing dots, so `acme.` and `acme` would be one directory there.
  if (value.endsWith('.')) return 'ends with "."';
  if (DEVICE_NAMES.test(value.split('.')[0] as string)) return 'is a reserved device name on Windows';
  // An id is a key of the lock and of the configuration, whose keys are a fixed schema there.
  if (HOSTILE_KEYS.includes(value)) return 'is a name JavaScript objects reserve';
  return undefined;
}

/** True when `value` is a plain extension id. */
export function isExtensionId(value: unknown): value is ExtensionId {
  return extensionIdProblem(value) === undefined;
}

/** A plain id as text, unbranded: for record keys (locks, configuration) validated in place. */
export const ExtensionIdText = z.string().superRefine((value, ctx) => {
  const problem = extensionIdProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: `not a plain extension id: it ${problem}; an id uses ${EXTENSION_ID_RULE}` });
});

/** An extension id, validated: the manifest's `id`, a directory name, a lock key. */
export const ExtensionId = ExtensionIdText.brand<'ExtensionId'>();
/** An extension id, validated. */
export type ExtensionId = z.infer<typeof ExtensionId>;

/**
 * `value` as an {@link ExtensionId}, or MepError(ERR_USAGE, `data.reason: 'bad-id'`) naming it
 * and the rule. `what` says where it came from (`the id to remove`).
 *
 * @example
 * const id = parseExtensionId(argv[0], 'the id to remove'); // throws for '../../src'
 */
export function parseExtensionId(value: unknown, what = 'the extension id'): ExtensionId {
  const problem = extensionIdProblem(value);
  if (problem === undefined) return value as ExtensionId;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new MepError(LocalErrorCode.Usage, `${what} ${shown} ${problem}: it is not a plain extension id, so nothing was touched. An id uses ${EXTENSION_ID_RULE}; run 'mep list' for the installed ones.`, {
    data: { extension: value, reason: 'bad-id', problem },
  });
}
