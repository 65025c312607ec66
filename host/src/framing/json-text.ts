/**
 * Messages to JSON text, with the {@link JsonText} members of a request's params written as their
 * (compacted) text rather than parsed and serialized: a big IR read from a file reaches the
 * extension without the host ever building it. Only direct members of `params` are looked at, so
 * any other message costs one walk over its params' keys.
 */
import { JsonText } from '../protocol/json-text.ts';

/** The JSON text of `message`, as `JSON.stringify` writes it but for {@link JsonText} members of its params. */
export function stringifyMessage(message: unknown): string {
  const params = (message as { params?: unknown } | null)?.params;
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return JSON.stringify(message);
  let spliced: { key: string; text: string }[] | undefined;
  for (const key of Object.keys(params)) {
    const member = (params as Record<string, unknown>)[key];
    if (member instanceof JsonText) (spliced ??= []).push({ key, text: member.compactText() });
  }
  if (spliced === undefined) return JSON.stringify(message);
  // Each such member becomes a marker string, found again in the output and replaced by its
  // text. A marker that is not found exactly once (the same string in the data) falls back.
  const marked: Record<string, unknown> = { ...(params as Record<string, unknown>) };
  const markers = spliced.map(({ key }, i) => {
    const marker = `\u0000mep:json-text:${i}`;
    marked[key] = marker;
    return JSON.stringify(marker);
  });
  let out = JSON.stringify({ ...(message as object), params: marked });
  for (let i = spliced.length - 1; i >= 0; i--) {
    const marker = markers[i] as string;
    const at = out.indexOf(marker);
    if (at < 0 || out.indexOf(marker, at + 1) >= 0) return JSON.stringify(message);
    out = out.slice(0, at) + (spliced[i] as { text: string }).text + out.slice(at + marker.length);
  }
  return out;
}
