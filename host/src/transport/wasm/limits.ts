/**
 * Resource limits and capability grants of one wasm extension, with the reference host's
 * defaults (architecture.md, Decisions: memory 256 MiB, 30 s per call, 64 MiB per message).
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { parseJson } from '../../protocol/json-parse.ts';

/** Bytes in one wasm page. */
export const WASM_PAGE_BYTES = 65_536;

/** What one wasm extension may consume. Every field is a positive integer. */
export interface WasmLimits {
  /** Cap on the guest's linear memory and on Extism kernel allocations per call, in bytes. */
  maxMemoryBytes: number;
  /** Cap on one message sent to the guest (the encoded JSON), in bytes. */
  maxRequestBytes: number;
  /** Cap on one message from the guest (response, notification, guest request), in bytes. */
  maxResponseBytes: number;
  /**
   * Deadline of one `handle` call, in milliseconds; also of everything before the first one
   * (compiling, instantiating, the start function) in worker isolation.
   */
  callTimeoutMs: number;
  /** Cap on the module's size, checked before it is compiled, in bytes. */
  maxModuleBytes: number;
  /**
   * Budget of one call's notifications (bytes of JSON; the running request's streamed artifacts
   * do not count) and, apart, of its Extism log lines (characters).
   */
  maxNotificationBytes: number;
}

/** The defaults: 256 MiB memory, 64 MiB each way, 30 s per call, 64 MiB modules, 64 MiB of notifications a call. */
export const DEFAULT_WASM_LIMITS: Readonly<WasmLimits> = Object.freeze({
  maxMemoryBytes: 256 * 1024 * 1024,
  maxRequestBytes: 64 * 1024 * 1024,
  maxResponseBytes: 64 * 1024 * 1024,
  callTimeoutMs: 30_000,
  maxModuleBytes: 64 * 1024 * 1024,
  maxNotificationBytes: 64 * 1024 * 1024,
});

/**
 * What the host grants a guest beyond the sandbox. Nothing is granted by default: no config
 * entries, `mep_clock_ms` returns 0 and `mep_random_fill` fills nothing.
 */
export interface WasmGrants {
  /** Entries readable through the Extism kernel's `config_get`. */
  config?: Record<string, string>;
  /** Let `mep_clock_ms` return the wall clock. */
  clock?: boolean;
  /**
   * Without the clock: the instant every call starts at, in whole seconds since 1970
   * (reproducible-builds.org's SOURCE_DATE_EPOCH; default {@link DEFAULT_SOURCE_DATE_EPOCH}).
   * The guest reads it as the Extism config entry `SOURCE_DATE_EPOCH`.
   */
  sourceDateEpoch?: number;
  /** Let `mep_random_fill` return cryptographically strong random bytes. */
  random?: boolean;
}

/** The instant an ungranted clock starts each call at: 2000-01-01T00:00:00Z, in seconds. */
export const DEFAULT_SOURCE_DATE_EPOCH = 946_684_800;
/** The latest SOURCE_DATE_EPOCH a Date can hold (ECMA-262's 8.64e15 ms), in seconds. */
export const MAX_SOURCE_DATE_EPOCH = 8_640_000_000_000;

/** `seconds` when it is a whole number of seconds a Date can hold; MepError(ERR_USAGE) naming `what` otherwise. */
export function checkSourceDateEpoch(seconds: number, what: string): number {
  if (Number.isSafeInteger(seconds) && seconds >= 0 && seconds <= MAX_SOURCE_DATE_EPOCH) return seconds;
  throw new MepError(LocalErrorCode.Usage, `${what}=${String(seconds)} is not a whole number of seconds from 0 to ${MAX_SOURCE_DATE_EPOCH} (the instants a Date holds); pass one, or leave it unset for 2000-01-01T00:00:00Z.`, {
    data: { [what]: seconds, max: MAX_SOURCE_DATE_EPOCH },
  });
}

/**
 * Fills the defaults into `limits` once and validates them.
 * Throws MepError(ERR_USAGE) naming the extension and the bad field.
 */
export function resolveWasmLimits(name: string, limits: Partial<WasmLimits> = {}): WasmLimits {
  const resolved: WasmLimits = { ...DEFAULT_WASM_LIMITS };
  // A name the sandbox does not read would leave its default in force without a word (a page's `maxMessageBytes`).
  const unknown = Object.keys(limits).find((key) => !Object.hasOwn(DEFAULT_WASM_LIMITS, key) && (limits as Record<string, unknown>)[key] !== undefined);
  if (unknown !== undefined) throw unknownLimit(name, unknown);
  for (const key of Object.keys(DEFAULT_WASM_LIMITS) as (keyof WasmLimits)[]) {
    const value = limits[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new MepError(
        LocalErrorCode.Usage,
        `Invalid limit ${key}=${String(value)} for wasm extension "${name}": use a positive integer.`,
        { data: { extension: name, limit: key, value } },
      );
    }
    resolved[key] = value;
  }
  if (resolved.maxMemoryBytes < WASM_PAGE_BYTES) {
    throw new MepError(
      LocalErrorCode.Usage,
      `Invalid limit maxMemoryBytes=${resolved.maxMemoryBytes} for wasm extension "${name}": it must be at least one wasm page (65536 bytes).`,
      { data: { extension: name, limit: 'maxMemoryBytes', value: resolved.maxMemoryBytes } },
    );
  }
  return resolved;
}

/** ERR_USAGE for a limit `key` the wasm sandbox does not have: the fields it has, and where a user-facing name goes instead. */
function unknownLimit(name: string, key: string): MepError {
  const instead =
    key === 'maxMessageBytes' ? ' Set maxMessageBytes here as maxRequestBytes and maxResponseBytes.'
    : key === 'maxOutputBytes' || key === 'maxOutputFiles' ? ` ${key} bounds what a generate call writes: pass it in the session's outputLimits.`
    : '';
  return new MepError(LocalErrorCode.Usage, `Unknown limit ${key} for wasm extension "${name}": the sandbox's limits are ${Object.keys(DEFAULT_WASM_LIMITS).join(', ')}.${instead}`, {
    data: { extension: name, limit: key },
  });
}

/** The memory cap in whole wasm pages (rounded down, at most 65536 = 4 GiB). */
export function maxMemoryPages(limits: WasmLimits): number {
  return Math.min(65_536, Math.floor(limits.maxMemoryBytes / WASM_PAGE_BYTES));
}

const decoder = new TextDecoder();
const OUT_OF_MEMORY_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * The message of a guest's answer that reports a failure the engine cannot distinguish from
 * memory exhaustion: an InternalError (-32603) or ExtensionFailure (-32010) response, or a
 * guest error (`error_set`) saying "out of memory". Only consulted when the guest's memory sits
 * at its cap after the call; `undefined` otherwise.
 */
export function outOfMemoryAnswer(answer: Uint8Array | string | null): string | undefined {
  if (answer === null) return undefined;
  if (typeof answer === 'string') return /out of memory/i.test(answer) ? answer : undefined;
  if (answer.length > OUT_OF_MEMORY_ANSWER_MAX_BYTES) return undefined;
  try {
    const message = parseJson(decoder.decode(answer), 'data') as { error?: { code?: unknown; message?: unknown } };
    const code = message.error?.code;
    if (code === -32603 || code === -32010) return String(message.error?.message);
  } catch {
    // Not JSON: the transport reports the unreadable answer itself.
  }
  return undefined;
}

/**
 * How big the guest PDK measured the answer it ran out of memory writing (`data.answerBytesAtLeast`
 * of its -32603 answer, a lower bound of the JSON's bytes), if it could tell.
 */
export function outOfMemoryAnswerBytes(answer: Uint8Array | null): number | undefined {
  if (answer === null || answer.length > OUT_OF_MEMORY_ANSWER_MAX_BYTES) return undefined;
  try {
    const message = parseJson(decoder.decode(answer), 'data') as { error?: { data?: { answerBytesAtLeast?: unknown } } };
    const bytes = message.error?.data?.answerBytesAtLeast;
    return typeof bytes === 'number' && Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
