/**
 * The wasm types of the functions a guest imports from the host, checked before it is compiled
 * against what the host provides: the Extism kernel's (`extism:host/env`) and the MEP host
 * channel's (`extism:host/user`, the legacy ABI). The host's functions are JavaScript, which takes
 * any type, so an import of the wrong type linked and failed only at its first call, in the words
 * of a value conversion that named no import (`mep_interrupt` as `(i32) -> i64`: "Cannot convert
 * 0 to a BigInt"). Part of the shape walk (module-shape.ts calls it; its verdict covers it).
 */
import { HOST_CHANNEL_SIGNATURES_V2 } from './host-channel.ts';
import { ModuleShapeError, type Reader } from './module-shape-read.ts';

/** Value types as letters: i32 `i`, i64 `I`, f32 `f`, f64 `d`, anything else `x`. */
const LETTER: Readonly<Record<number, string>> = { 0x7f: 'i', 0x7e: 'I', 0x7d: 'f', 0x7c: 'd' };
const NAME: Readonly<Record<string, string>> = { i: 'i32', I: 'i64', f: 'f32', d: 'f64', x: 'a reference' };

/** The Extism kernel's functions a guest may import, as `params>results` (extism:host/env). */
const KERNEL: Readonly<Record<string, string>> = {
  alloc: 'I>I', free: 'I>', length: 'I>I', length_unsafe: 'I>I', load_u8: 'I>i', load_u64: 'I>I', store_u8: 'Ii>', store_u64: 'II>',
  input_offset: '>I', input_length: '>I', input_load_u8: 'I>i', input_load_u64: 'I>I', output_set: 'II>', error_set: 'I>',
  config_get: 'I>I', var_get: 'I>I', var_set: 'II>', log_info: 'I>', log_debug: 'I>', log_warn: 'I>', log_error: 'I>',
};
const CHANNEL: Readonly<Record<string, string>> = Object.fromEntries(HOST_CHANNEL_SIGNATURES_V2.map(([name, params, results]) => [name, `${params}>${results}`]));
const PROVIDED: Readonly<Record<string, Readonly<Record<string, string>>>> = { 'extism:host/env': KERNEL, 'extism:host/user': CHANNEL };

const shown = (type: string): string => {
  const [params, results] = type.split('>') as [string, string];
  const list = (letters: string): string => [...letters].map((l) => NAME[l]).join(', ');
  return `(${list(params)}) -> (${list(results)})`;
};

const utf8 = new TextDecoder();

/** A string of the binary (a name): its length, then its bytes. */
export function importName(s: Reader): string {
  const length = s.u32();
  const start = s.pos;
  s.skip(length);
  return utf8.decode(s.bytes.subarray(start, start + length));
}

/** A value type's byte as its letter. */
export const typeLetter = (byte: number): string => LETTER[byte] ?? 'x';

/** One function the module imports: where from, and its type as `params>results` letters. */
export interface FunctionImport {
  module: string;
  field: string;
  type: string | undefined;
}

/**
 * Throws ModuleShapeError naming the first function import of the host's (the kernel's or the
 * channel's) whose type is not the one the host provides. Other imports are refused by name later
 * (module.ts `checkGuestModule`).
 */
export function checkImportTypes(imports: readonly FunctionImport[]): void {
  for (const { module, field, type } of imports) {
    const provided = Object.hasOwn(PROVIDED, module) && Object.hasOwn(PROVIDED[module] as object, field) ? (PROVIDED[module] as Record<string, string>)[field] : undefined;
    if (provided === undefined || type === undefined || type === provided) continue;
    throw new ModuleShapeError(`its import ${module}.${field} has the type ${shown(type)}, where the host provides ${shown(provided)}; rebuild it against wit/mep-guest.wit and the Extism kernel`);
  }
}
