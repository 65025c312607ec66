/**
 * The declarations of a mep wasm guest's globals, as text. They are served to the TypeScript
 * checker as a virtual file (typecheck.ts) rather than shipped as a .d.ts in this folder, because
 * they redeclare `console`, `TextEncoder` and friends and would clash with the repository's own
 * DOM/Node type check. {@link writeGuestTypes} writes them out for editors.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** File name of the declarations (virtual in the checker, real after {@link writeGuestTypes}). */
export const GUEST_TYPES_FILE = 'mep-guest.d.ts';

/** Text of the guest globals' declarations. */
export const GUEST_TYPES_DTS = String.raw`/**
 * Globals of a mep wasm guest (the engine in build/engine), compatible with @extism/js-pdk's
 * declarations, plus the MEP host API __mep. The build type-checks entries against this file
 * with the ES2020 library (no DOM, no Node).
 */

/** A block of Extism kernel memory. Offsets are BigInt (Extism addresses exceed 2^53). */
declare class MemoryHandle {
  constructor(offset: bigint | number, len: bigint | number);
  readonly offset: bigint;
  readonly len: number;
  readString(): string;
  readBytes(): ArrayBuffer;
  readJsonObject<T = unknown>(): T;
  free(): void;
}

/** Extism kernel memory. */
declare const Memory: {
  fromString(value: string): MemoryHandle;
  fromBuffer(bytes: ArrayBufferLike | ArrayBufferView): MemoryHandle;
  fromJsonObject(value: unknown): MemoryHandle;
  find(offset: bigint | number): MemoryHandle;
  readBytes(offset: bigint | number): ArrayBuffer;
  readString(offset: bigint | number): string;
};

/**
 * The MEP host channel (wit/mep-guest.wit), available during an exported call. A host that is not
 * a MEP host (any other Extism host) attaches no channel: then notify returns false, request
 * null, interrupted false, clockMs 0 and randomFill false; nothing traps.
 */
interface MepHostFunctions {
  /** True when the host attached the MEP channel (ask at call time, not at top level). */
  hostChannel(): boolean;
  /** Sends one JSON-RPC notification (progress, log) to the host; false without a channel. */
  notify(json: string): boolean;
  /** Sends one JSON-RPC request; returns the host's JSON response, or null when it has none. */
  request(json: string): string | null;
  /** True when the host asks the guest to stop now (deadline or cancel). */
  interrupted(): boolean;
  /** Wall-clock ms since the epoch when the host granted time, else 0. */
  clockMs(): number;
  /** Fills an integer typed array with random bytes; false when randomness is not granted. */
  randomFill(view: ArrayBufferView): boolean;
  /** The call's input parsed as JSON straight from its UTF-8 bytes (JSON.parse(Host.inputString()) without the string). */
  inputJson(): unknown;
}

/** The MEP host API. */
declare const __mep: MepHostFunctions;

/**
 * The call's input and output: one copy each way in a MEP host, through the Extism kernel
 * (8 bytes per host call) in any other Extism host.
 */
declare const Host: {
  inputBytes(): ArrayBuffer;
  inputString(): string;
  /** Throws RangeError "output exceeds the host's limit" when the host refuses the size. */
  outputBytes(output: ArrayBufferLike | ArrayBufferView): boolean;
  outputString(output: string): boolean;
  getFunctions(): MepHostFunctions;
};

/** Plugin configuration supplied by the host. */
declare const Config: {
  get(key: string): string | null;
};

interface Console {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  debug(...data: unknown[]): void;
  trace(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
}
/** Maps to Extism log levels (log/info: info, debug/trace: debug, warn, error). */
declare const console: Console;

declare class TextEncoder {
  readonly encoding: 'utf-8';
  encode(input?: string): Uint8Array;
  encodeInto(input: string, dest: Uint8Array): { read: number | undefined; written: number };
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  readonly encoding: 'utf-8';
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}

/** Requires the host's randomness grant. */
declare const crypto: {
  getRandomValues<T extends ArrayBufferView>(view: T): T;
  randomUUID(): string;
};
/** Returns 0 unless the host granted time. */
declare const performance: { now(): number; readonly timeOrigin: number };

declare function structuredClone<T>(value: T): T;
declare function queueMicrotask(fn: () => void): void;
declare function atob(data: string): string;
declare function btoa(data: string): string;

interface Array<T> {
  at(index: number): T | undefined;
  findLast(predicate: (value: T, index: number, array: T[]) => unknown, thisArg?: unknown): T | undefined;
  findLastIndex(predicate: (value: T, index: number, array: T[]) => unknown, thisArg?: unknown): number;
  toSorted(compareFn?: (a: T, b: T) => number): T[];
  toReversed(): T[];
  toSpliced(start: number, deleteCount?: number, ...items: T[]): T[];
  with(index: number, value: T): T[];
}
interface ReadonlyArray<T> {
  at(index: number): T | undefined;
  findLast(predicate: (value: T, index: number, array: readonly T[]) => unknown, thisArg?: unknown): T | undefined;
  findLastIndex(predicate: (value: T, index: number, array: readonly T[]) => unknown, thisArg?: unknown): number;
  toSorted(compareFn?: (a: T, b: T) => number): T[];
  toReversed(): T[];
}
interface String {
  at(index: number): string | undefined;
  replaceAll(searchValue: string | RegExp, replaceValue: string): string;
}
interface ObjectConstructor {
  hasOwn(o: object, v: PropertyKey): boolean;
}
`;

/**
 * Writes the declarations to `dir/mep-guest.d.ts` (for an extension's editor setup: reference it
 * from a tsconfig with `"lib": ["es2020"]`); returns the path.
 */
export function writeGuestTypes(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, GUEST_TYPES_FILE);
  writeFileSync(file, GUEST_TYPES_DTS);
  return file;
}
