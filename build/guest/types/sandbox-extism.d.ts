/**
 * The Extism globals of a mep wasm guest (build/engine/glue/prelude.js), compatible with
 * @extism/js-pdk's declarations, and the MEP host API `__mep`. An extension written with the guest
 * PDK never needs them (the PDK uses them for it); they are wasm-only: a `--runtime process` build
 * has none of them.
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
