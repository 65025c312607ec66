/**
 * Messages to JSON text, with the {@link JsonText} members of a request's params written as their
 * (compacted) text rather than parsed and serialized: a big IR read from a file reaches the
 * extension without the host ever building it, and, encoded ({@link encodeMessage}), as the very
 * bytes read from the file when the text is compact ASCII. Only direct members of `params` are
 * looked at, so any other message costs one walk over its params' keys.
 */
import { stringifyWithinDepth } from '../protocol/json-depth.ts';
import { JsonText } from '../protocol/json-text.ts';
import { preserializedText } from './json-sliced-stringify.ts';
import { encodeUtf8, joinBytes } from './utf8.ts';

/** `out` with the one occurrence of the JSON string `marker` replaced by `text`; undefined when it is not there exactly once (the same string in the data). */
function replaceMarker(out: string, marker: string, text: string): string | undefined {
  const quoted = JSON.stringify(marker);
  const at = out.indexOf(quoted);
  if (at < 0 || out.indexOf(quoted, at + 1) >= 0) return undefined;
  return out.slice(0, at) + text + out.slice(at + quoted.length);
}

/** A message's params when they are a plain object not written ahead, else undefined. */
function plainParams(message: unknown): Record<string, unknown> | undefined {
  const params = (message as { params?: unknown } | null)?.params;
  return typeof params === 'object' && params !== null && !Array.isArray(params) && preserializedText(params) === undefined ? (params as Record<string, unknown>) : undefined;
}

/** The {@link JsonText} members of `params`, by key, in their order; undefined when none. */
function jsonTextMembers(params: Record<string, unknown>): { key: string; json: JsonText }[] | undefined {
  let found: { key: string; json: JsonText }[] | undefined;
  for (const key of Object.keys(params)) {
    const member = params[key];
    if (member instanceof JsonText) (found ??= []).push({ key, json: member });
  }
  return found;
}

/** The marker string standing for the `i`th {@link JsonText} member while the rest is written. */
const markerOf = (i: number): string => `\u0000mep:json-text:${i}`;

/** `message` written with each of `members` as its marker string, in params' key order. */
function markedText(message: unknown, params: Record<string, unknown>, members: readonly { key: string }[]): string {
  const marked: Record<string, unknown> = { ...params };
  members.forEach(({ key }, i) => (marked[key] = markerOf(i)));
  return JSON.stringify({ ...(message as object), params: marked });
}

/**
 * The JSON text of `message`, as `JSON.stringify` writes it but for {@link JsonText} members of
 * its params, and params written ahead in slices (json-sliced-stringify.ts), which are spliced in.
 */
export function stringifyMessage(message: unknown): string {
  const params = (message as { params?: unknown } | null)?.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return stringifyWithinDepth(message);
  const whole = preserializedText(params);
  if (whole !== undefined) return replaceMarker(JSON.stringify({ ...(message as object), params: PARAMS_MARKER }), PARAMS_MARKER, whole) ?? stringifyWithinDepth(message);
  const spliced = jsonTextMembers(params as Record<string, unknown>);
  if (spliced === undefined) return stringifyWithinDepth(message);
  // Each such member becomes a marker string, found again in the output and replaced by its
  // text. A marker that is not found exactly once (the same string in the data) falls back.
  let out: string | undefined = markedText(message, params as Record<string, unknown>, spliced);
  for (let i = spliced.length - 1; i >= 0 && out !== undefined; i--) out = replaceMarker(out, markerOf(i), (spliced[i] as { json: JsonText }).json.compactText());
  return out ?? stringifyWithinDepth(message);
}

/**
 * `encodeUtf8(stringifyMessage(message))`, byte for byte, in a buffer of its own; a
 * {@link JsonText} member that holds its compact text's UTF-8 bytes (an ASCII file read as bytes:
 * `JsonText.compactUtf8`) is copied in as those bytes, so a 2 MB IR is neither joined into one
 * string nor encoded again (issue 32).
 */
export function encodeMessage(message: unknown): Uint8Array {
  const params = plainParams(message);
  const members = params && jsonTextMembers(params);
  const bytes = members?.map(({ json }) => json.compactUtf8());
  if (params === undefined || members === undefined || bytes === undefined || bytes.some((b) => b === undefined)) return encodeUtf8(stringifyMessage(message));
  // The text around the members: each marker found exactly once, in order, else the plain way.
  const out = markedText(message, params, members);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (let i = 0; i < members.length; i++) {
    const quoted = JSON.stringify(markerOf(i));
    const at = out.indexOf(quoted);
    if (at < from || out.indexOf(quoted, at + 1) >= 0) return encodeUtf8(stringifyMessage(message));
    pieces.push(encodeUtf8(out.slice(from, at)), bytes[i] as Uint8Array);
    from = at + quoted.length;
  }
  pieces.push(encodeUtf8(out.slice(from)));
  return joinBytes(pieces);
}

const PARAMS_MARKER = '\u0000mep:json-text:params';
