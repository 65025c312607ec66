/**
 * Bounds on what an extension tells the host about itself: its claim set (pinned in
 * `extensions.lock` and read by every later command), its initialize result (kept for the
 * session, echoed to a `mep serve` client), its info and capabilities answers. Their schemas are
 * loose (members a reader does not know are kept), so without a bound a 126 KB package answered
 * `describe` with a value deep and wide enough to write a 248 MB lock, which every later command
 * read (`mep list`: 3–10 s, 578 MB). Checked on the decoded value before anything is stored, in
 * one walk that stops at the first excess. No I/O.
 */
import { LocalErrorCode, MepError } from './errors.ts';
import { HOST_BOUNDS, type HostBound } from './limits.ts';

/** The bounds of {@link checkMetadataBounds}; the defaults are {@link HOST_BOUNDS}'. */
export interface MetadataBounds {
  maxChars: number;
  maxDepth: number;
  maxItems: number;
  maxStringLength: number;
}

const DEFAULTS: MetadataBounds = {
  maxChars: HOST_BOUNDS.maxMetadataChars,
  maxDepth: HOST_BOUNDS.maxMetadataDepth,
  maxItems: HOST_BOUNDS.maxMetadataItems,
  maxStringLength: HOST_BOUNDS.maxMetadataStringLength,
};

function excess(what: string, extension: string, limit: HostBound, detail: string, value: number, bound: number): MepError {
  return new MepError(
    LocalErrorCode.Limit,
    `${what} of extension '${extension}' ${detail} (${value}), over the host's bound of ${bound} (${limit}); nothing of it was stored. What an extension says about itself must stay small: ask its author to describe it with less.`,
    { data: { extension, what, limit, value, bound } },
  );
}

/**
 * Throws ERR_LIMIT (`data.limit` the bound's name, `data.value`, `data.bound`) when `value`, a
 * decoded JSON value that `extension` sent as `what` (e.g. `The claim set`), is longer, deeper or
 * wider than {@link HOST_BOUNDS} allow; returns `value` otherwise.
 *
 * @example
 * const claims = parseClaimSet(checkMetadataBounds(raw, 'The claim set', id));
 */
export function checkMetadataBounds<T>(value: T, what: string, extension: string, bounds: MetadataBounds = DEFAULTS): T {
  const stack: [unknown, number][] = [[value, 1]];
  let chars = 0;
  const text = (s: string): void => {
    if (s.length > bounds.maxStringLength) throw excess(what, extension, 'maxMetadataStringLength', 'holds a string this long', s.length, bounds.maxStringLength);
    chars += s.length + 3;
  };
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item === 'string') text(item);
    else if (typeof item === 'object' && item !== null) {
      if (depth > bounds.maxDepth) throw excess(what, extension, 'maxMetadataDepth', 'nests this many levels deep', depth, bounds.maxDepth);
      const keys = Array.isArray(item) ? undefined : Object.keys(item);
      const count = keys === undefined ? (item as unknown[]).length : keys.length;
      if (count > bounds.maxItems) throw excess(what, extension, 'maxMetadataItems', `has a ${keys === undefined ? 'list' : 'object'} of this many members`, count, bounds.maxItems);
      chars += 2;
      if (keys === undefined) for (const member of item as unknown[]) stack.push([member, depth + 1]);
      else
        for (const key of keys) {
          text(key);
          stack.push([(item as Record<string, unknown>)[key], depth + 1]);
        }
    } else chars += 8;
    if (chars > bounds.maxChars) throw excess(what, extension, 'maxMetadataChars', 'is larger than this many characters of JSON', chars, bounds.maxChars);
  }
  return value;
}
