/**
 * Messages to JSON text, with the {@link JsonText} members of a request's params written as their
 * (compacted) text rather than parsed and serialized: a big IR read from a file reaches the
 * extension without the host ever building it. Only direct members of `params` are looked at, so
 * any other message costs one walk over its params' keys.
 */
import { JsonText } from '../protocol/json-text.ts';
import { preserializedText } from './json-sliced-stringify.ts';

/** `out` with the one occurrence of the JSON string `marker` replaced by `text`; undefined when it is not there exactly once (the same string in the data). */
function replaceMarker(out: string, marker: string, text: string): string | undefined {
  const quoted = JSON.stringify(marker);
  const at = out.indexOf(quoted);
  if (at < 0 || out.indexOf(quoted, at + 1) >= 0) return undefined;
  return out.slice(0, at) + text + out.slice(at + quoted.length);
}

/**
 * The JSON text of `message`, as `JSON.stringify` writes it but for {@link JsonText} members of
 * its params, and params written ahead in slices (json-sliced-stringify.ts), which are spliced in.
 */
export function stringifyMessage(message: unknown): string {
  const params = (message as { params?: unknown } | null)?.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return JSON.stringify(message);
  const whole = preserializedText(params);
  if (whole !== undefined) return replaceMarker(JSON.stringify({ ...(message as object), params: PARAMS_MARKER }), PARAMS_MARKER, whole) ?? JSON.stringify(message);
  let spliced: { key: string; text: string }[] | undefined;
  for (const key of Object.keys(params)) {
    const member = (params as Record<string, unknown>)[key];
    if (member instanceof JsonText) (spliced ??= []).push({ key, text: member.compactText() });
  }
  if (spliced === undefined) return JSON.stringify(message);
  // Each such member becomes a marker string, found again in the output and replaced by its
  // text. A marker that is not found exactly once (the same string in the data) falls back.
  const marked: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  spliced.forEach(({ key }, i) => (marked[key] = `\u0000mep:json-text:${i}`));
  let out: string | undefined = JSON.stringify({ ...(message as object), params: marked });
  for (let i = spliced.length - 1; i >= 0 && out !== undefined; i--) out = replaceMarker(out, `\u0000mep:json-text:${i}`, (spliced[i] as { text: string }).text);
  return out ?? JSON.stringify(message);
}

const PARAMS_MARKER = '\u0000mep:json-text:params';
