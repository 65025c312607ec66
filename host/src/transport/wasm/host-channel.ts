/**
 * The MEP host channel of wit/mep-guest.wit, attached at run time: a default guest imports only
 * the Extism kernel and exports its indirect function table and `mep_host_attach`. The host
 * instantiates a tiny "trampoline" module that imports the eight (version 2: nine) host functions (with their exact
 * wasm types) and re-exports them, grows the guest's table by as many, puts the trampoline's
 * exports there and tells the guest which slots they are. `call_indirect` checks function types
 * structurally, so the types here must match the C declarations in build/engine/glue/engine.h.
 *
 * A module built by an earlier release imports the same functions from `extism:host/user`
 * instead ({@link guestAbi} tells the two apart); the host then provides them as imports.
 */
import { writeU32 } from './memory-cap.ts';

/** The host functions of version 1, in slot order, with their wasm types (params, results). */
export const HOST_CHANNEL_SIGNATURES = [
  ['mep_input_copy', 'ii', 'i'],
  ['mep_output_copy', 'ii', 'i'],
  ['mep_notify', 'ii', ''],
  ['mep_request', 'ii', 'i'],
  ['mep_reply_copy', 'ii', 'i'],
  ['mep_interrupt', '', 'i'],
  ['mep_clock_ms', '', 'd'],
  ['mep_random_fill', 'ii', 'i'],
] as const;

/**
 * Version 2 adds a ninth slot: `mep_artifact(envelope-ptr, envelope-len, content-ptr,
 * content-len)`, a streamed artifact's content as raw bytes beside a small JSON envelope.
 */
export const HOST_CHANNEL_SIGNATURES_V2 = [...HOST_CHANNEL_SIGNATURES, ['mep_artifact', 'iiii', '']] as const;

/** Names of the host functions, in slot order. */
export type HostChannelName = (typeof HOST_CHANNEL_SIGNATURES_V2)[number][0];

/**
 * The host functions as plain wasm functions (i32 as number, f64 as number): the eight of version
 * 1, and `mep_artifact` where the host takes raw artifacts (without it the channel is version 1
 * whatever the trampoline, and the guest streams artifacts as JSON notifications).
 */
export type HostChannelFunctions = Record<Exclude<HostChannelName, 'mep_artifact'>, (...args: number[]) => number | void> & {
  mep_artifact?: (...args: number[]) => number | void;
};

/** Version of the attach protocol (`mep_host_attach(first_slot, count, version)`) with eight slots. */
export const HOST_CHANNEL_VERSION = 1;
/** The version with `mep_artifact` in a ninth slot; a guest that answers 1 (unsupported version) gets version 1. */
export const HOST_CHANNEL_VERSION_ARTIFACT = 2;

/** The guest ABI of a module: `extism` (portable, channel attached) or `mep-imports` (legacy). */
export type GuestAbi = 'extism' | 'mep-imports';

/** The module namespace the trampoline imports from. */
const TRAMPOLINE_NAMESPACE = 'mep';
const VALTYPE: Record<string, number> = { i: 0x7f, d: 0x7c };

const name = (s: string): number[] => {
  const bytes = Array.from(new TextEncoder().encode(s));
  return [...writeU32(bytes.length), ...bytes];
};
const section = (id: number, entries: number[][]): number[] => {
  const body = [...writeU32(entries.length), ...entries.flat()];
  return [id, ...writeU32(body.length), ...body];
};

/**
 * The bytes of the trampoline module: one type per signature, eight function imports from
 * `mep`, the same eight re-exported under the same names. 300-odd bytes, built once. With
 * `{ artifacts: true }` the nine of version 2 (`mep_artifact` too). A precompiled trampoline of
 * eight (workerd binds one) attaches version 1: its guests stream artifacts as JSON notifications.
 */
export function hostTrampolineBytes(options: { artifacts?: boolean } = {}): Uint8Array {
  const signatures = options.artifacts === true ? HOST_CHANNEL_SIGNATURES_V2 : HOST_CHANNEL_SIGNATURES;
  const types: string[] = [];
  const typeOf = signatures.map(([, params, results]) => {
    const key = `${params}:${results}`;
    if (!types.includes(key)) types.push(key);
    return types.indexOf(key);
  });
  const typeEntries = types.map((key) => {
    const [params = '', results = ''] = key.split(':');
    return [0x60, ...writeU32(params.length), ...[...params].map((c) => VALTYPE[c]!), ...writeU32(results.length), ...[...results].map((c) => VALTYPE[c]!)];
  });
  const imports = signatures.map(([fn], i) => [...name(TRAMPOLINE_NAMESPACE), ...name(fn), 0x00, ...writeU32(typeOf[i]!)]);
  const exports = signatures.map(([fn], i) => [...name(fn), 0x00, ...writeU32(i)]);
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...section(1, typeEntries), ...section(2, imports), ...section(7, exports)]);
}

// The trampolines compiled once per thread, by whether they carry mep_artifact.
const compiled = new Map<boolean, WebAssembly.Module | null>();

/** The trampoline of version 2 (`artifacts`) or 1, compiled once per thread; null where compiling wasm at run time is forbidden. */
function compiledTrampoline(artifacts: boolean): WebAssembly.Module | null {
  if (!compiled.has(artifacts)) {
    try {
      compiled.set(artifacts, new WebAssembly.Module(hostTrampolineBytes({ artifacts }) as Uint8Array<ArrayBuffer>));
    } catch {
      // Forbidden by the embedder (workerd): the caller degrades and says so.
      compiled.set(artifacts, null);
    }
  }
  return compiled.get(artifacts) ?? null;
}

/**
 * The trampoline compiled once per thread, or null where compiling wasm at run time is forbidden
 * (workerd, Cloudflare Workers): pass a precompiled one there (`hostTrampolineBytes()` written to
 * a `.wasm` the platform binds as a module).
 */
export function defaultHostTrampoline(): WebAssembly.Module | null {
  return compiledTrampoline(true);
}

/** Which ABI `module` was built for, from its imports and exports; null when it has neither. */
export function guestAbi(module: WebAssembly.Module): GuestAbi | null {
  const names = new Set<string>(HOST_CHANNEL_SIGNATURES.map(([fn]) => fn));
  if (WebAssembly.Module.imports(module).some((i) => i.module === 'extism:host/user' && names.has(i.name))) return 'mep-imports';
  const exports = WebAssembly.Module.exports(module);
  const has = (n: string, kind: string): boolean => exports.some((e) => e.name === n && e.kind === kind);
  if (has('mep_host_attach', 'function') && has('__indirect_function_table', 'table')) return 'extism';
  return null;
}

/**
 * Attaches `functions` to a guest instance of the `extism` ABI through `trampoline`: version 2
 * (nine slots) when the trampoline has `mep_artifact`, else, or for a guest that does not know
 * version 2 (an engine built before it), version 1 (eight). Returns the version attached. Throws
 * an Error saying what went wrong when the guest refuses (it then runs degraded).
 */
export function attachHostChannel(instance: WebAssembly.Instance, functions: HostChannelFunctions, trampoline: WebAssembly.Module): number {
  const table = instance.exports.__indirect_function_table;
  const attach = instance.exports.mep_host_attach;
  if (!(table instanceof WebAssembly.Table) || typeof attach !== 'function') {
    throw new Error('the guest exports no __indirect_function_table or mep_host_attach');
  }
  // Functions without mep_artifact (a host of version 1) through a trampoline that imports it: the
  // trampoline of eight attaches them, instead of an instantiation error naming an import.
  const importsArtifact = WebAssembly.Module.imports(trampoline).some((i) => i.name === 'mep_artifact');
  const usable = importsArtifact && typeof functions.mep_artifact !== 'function' ? (compiledTrampoline(false) ?? trampoline) : trampoline;
  const exports = new WebAssembly.Instance(usable, { [TRAMPOLINE_NAMESPACE]: functions }).exports;
  const missing = HOST_CHANNEL_SIGNATURES.filter(([fn]) => typeof exports[fn] !== 'function').map(([fn]) => fn);
  if (missing.length > 0) throw new Error(`the host-channel trampoline does not export ${missing.join(', ')}; build it with hostTrampolineBytes()`);
  const signatures = typeof exports.mep_artifact === 'function' ? HOST_CHANNEL_SIGNATURES_V2 : HOST_CHANNEL_SIGNATURES;
  const first = table.grow(signatures.length);
  signatures.forEach(([fn], i) => table.set(first + i, exports[fn] as WebAssembly.ExportValue as never));
  const call = attach as (first: number, count: number, version: number) => number;
  let version: number = signatures === HOST_CHANNEL_SIGNATURES_V2 ? HOST_CHANNEL_VERSION_ARTIFACT : HOST_CHANNEL_VERSION;
  let rc = call(first, signatures.length, version);
  // An engine built before version 2 answers 1: the first eight slots are version 1's.
  if (rc === 1 && version === HOST_CHANNEL_VERSION_ARTIFACT) rc = call(first, HOST_CHANNEL_SIGNATURES.length, (version = HOST_CHANNEL_VERSION));
  if (rc !== 0) throw new Error(`the guest refused the host channel (mep_host_attach returned ${rc}: ${rc === 1 ? 'unsupported version' : 'unsupported slots'})`);
  return version;
}
