/**
 * A served client's params written as JSON in slices, before they are sent. The host parses a
 * client's message in slices (protocol/json-sliced.ts), but wrote it again for the extension in
 * one `JSON.stringify` inside the transport's `send`, whose time follows the values: a 60 MB
 * generate body of empty objects held the event loop every client shares for 2.3 s in that one
 * call (3.9 s with the collector), during which no other client, `/health` included, was
 * answered. {@link preserialize} writes large params beforehand, at most
 * {@link STRINGIFY_SLICE_VALUES} values between two turns of the loop (subtrees of up to
 * {@link NATIVE_VALUES} values by one native `JSON.stringify`), and keeps the text for that params
 * object; framing/json-text.ts's `stringifyMessage` then splices it in. No I/O.
 */

/** Values written between two turns of the event loop. */
export const STRINGIFY_SLICE_VALUES = 16_384;
/** A subtree of at most this many values is written by one native JSON.stringify. */
const NATIVE_VALUES = 4096;
/** Params of fewer values are left to the transport's one JSON.stringify (a few ms at most). */
export const PRESERIALIZED_FROM_VALUES = 65_536;

/** The JSON text of params objects written ahead, by object, with the top-level members it was written from. */
const written = new WeakMap<object, { text: string; members: [string, unknown][] }>();

const membersOf = (params: object): [string, unknown][] => Object.keys(params).map((key) => [key, (params as Record<string, unknown>)[key]]);

// setImmediate where the platform has it (Node: the next turn, after pending I/O); else a timer (an edge worker).
const nextTurn: (resolve: () => void) => void = typeof globalThis.setImmediate === 'function' ? (resolve) => globalThis.setImmediate(resolve) : (resolve) => setTimeout(resolve, 0);

/** The values of `value` (itself included), counted up to `limit` (then `limit`): at most `limit` steps, whatever the containers' sizes. */
export function countValuesUpTo(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 1;
  let count = 1;
  const stack: { items: readonly unknown[] | Record<string, unknown>; keys: readonly string[] | undefined; next: number }[] = [];
  stack.push({ items: value as Record<string, unknown>, keys: Array.isArray(value) ? undefined : Object.keys(value), next: 0 });
  while (stack.length > 0 && count < limit) {
    const frame = stack[stack.length - 1] as (typeof stack)[number];
    const length = frame.keys === undefined ? (frame.items as readonly unknown[]).length : frame.keys.length;
    if (frame.next >= length) {
      stack.pop();
      continue;
    }
    const i = frame.next++;
    const v = frame.keys === undefined ? (frame.items as readonly unknown[])[i] : (frame.items as Record<string, unknown>)[frame.keys[i] as string];
    count++;
    if (typeof v === 'object' && v !== null) stack.push({ items: v as Record<string, unknown>, keys: Array.isArray(v) ? undefined : Object.keys(v), next: 0 });
  }
  return Math.min(count, limit);
}

interface Frame {
  container: object;
  keys: readonly string[] | undefined;
  next: number;
  /** Members written so far (objects). */
  written: number;
}

/**
 * The text `JSON.stringify(value)` writes, for parsed JSON data (plain objects, arrays, strings,
 * finite numbers, booleans, null), built with a turn of the event loop every `sliceValues`
 * values. Rejects with `signal`'s reason once it is aborted.
 */
export async function stringifySliced(value: unknown, options: { sliceValues?: number; signal?: AbortSignal } = {}): Promise<string> {
  const slice = Math.max(1, options.sliceValues ?? STRINGIFY_SLICE_VALUES);
  const chunks: string[] = [];
  let out = '';
  const stack: Frame[] = [];
  let budget = slice;
  const write = (text: string): void => {
    out += text;
    if (out.length >= 64 * 1024) (chunks.push(out), (out = ''));
  };
  /** Writes `v` natively when small (true), else opens it (false). */
  const start = (v: unknown): void => {
    const small = countValuesUpTo(v, NATIVE_VALUES + 1);
    budget -= small;
    if (small <= NATIVE_VALUES) return write(JSON.stringify(v) ?? 'null');
    const isArray = Array.isArray(v);
    write(isArray ? '[' : '{');
    stack.push({ container: v as object, keys: isArray ? undefined : Object.keys(v as object), next: 0, written: 0 });
  };
  start(value);
  for (;;) {
    if (budget <= 0) {
      budget = slice;
      await new Promise<void>(nextTurn);
      options.signal?.throwIfAborted();
    }
    const frame = stack[stack.length - 1];
    if (frame === undefined) break;
    const { container, keys } = frame;
    const length = keys === undefined ? (container as unknown[]).length : keys.length;
    if (frame.next >= length) {
      write(keys === undefined ? ']' : '}');
      stack.pop();
      continue;
    }
    const i = frame.next;
    if (keys !== undefined) {
      frame.next++;
      const key = keys[i] as string;
      const member = (container as Record<string, unknown>)[key];
      // As JSON.stringify: a member it leaves out takes no place (nor comma).
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      write(`${frame.written++ > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      start(member);
      continue;
    }
    if (i > 0) write(',');
    // A run of small elements, up to NATIVE_VALUES in all, by one JSON.stringify of the run.
    const array = container as unknown[];
    let end = i;
    let values = 0;
    while (end < length && values < NATIVE_VALUES) {
      const n = countValuesUpTo(array[end], NATIVE_VALUES + 1 - values);
      if (values + n > NATIVE_VALUES) break;
      values += n;
      end++;
    }
    if (end === i) {
      frame.next++;
      start(array[i]);
      continue;
    }
    frame.next = end;
    budget -= values;
    write((JSON.stringify(array.slice(i, end)) as string).slice(1, -1));
  }
  chunks.push(out);
  return chunks.join('');
}

/**
 * Writes `params` (a served client's decoded params, as they will be sent) in slices when they
 * hold {@link PRESERIALIZED_FROM_VALUES} values or more, and keeps the text for them; returns
 * `params`. The text is used only while the params hold the same top-level members (a member
 * set or replaced after this is seen, and the params written again); what lies deeper is the
 * client's data, which the host does not change.
 *
 * @example
 * await session.generate(await preserialize(decodeParams(GenerateParams, params, method), signal), options);
 */
export async function preserialize<T>(params: T, signal?: AbortSignal): Promise<T> {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  if (countValuesUpTo(params, PRESERIALIZED_FROM_VALUES) < PRESERIALIZED_FROM_VALUES) return params;
  const text = await stringifySliced(params, signal ? { signal } : {});
  written.set(params, { text, members: membersOf(params) });
  return params;
}

/** The text {@link preserialize} wrote for `params`, if any and its top-level members are still those it was written from. */
export function preserializedText(params: object): string | undefined {
  const entry = written.get(params);
  if (entry === undefined) return undefined;
  const now = membersOf(params);
  return now.length === entry.members.length && now.every(([key, value], i) => entry.members[i]?.[0] === key && entry.members[i]?.[1] === value) ? entry.text : undefined;
}
