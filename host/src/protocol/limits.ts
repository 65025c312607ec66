/**
 * The resource limits a user sets per extension (three for both runtimes, two more for the wasm
 * sandbox, two on what one generate call writes), and the one way a limit error says how to raise them. No I/O: the same table serves the wasm core, the process
 * transport, framing, the manifest schema and the CLI.
 *
 * Each limit has one name everywhere: the `extension.json` field (`"limits": {"maxMemoryBytes":
 * …}`), the `mep` option (`--max-memory 512MiB`) and the library option of the same name.
 */
import * as z from 'zod';

/** The largest message V8 can hold as one string (2^29 − 24 characters), rounded down to MiB. */
export const MAX_MESSAGE_BYTES_CEILING = 511 * 1024 * 1024;
/** The largest wasm32 linear memory: 65,536 pages of 64 KiB. */
export const MAX_MEMORY_BYTES_CEILING = 4 * 1024 * 1024 * 1024;
/** The longest timer a JavaScript host can arm (2^31 − 1 ms, about 24.8 days). */
export const MAX_CALL_TIMEOUT_MS_CEILING = 2_147_483_647;
/** The largest module V8 compiles (1 GiB). */
export const MAX_MODULE_BYTES_CEILING = 1024 * 1024 * 1024;
/** The largest per-call budget of notifications and logs that may be set (64 GiB). */
export const MAX_NOTIFICATION_BYTES_CEILING = 64 * 1024 * 1024 * 1024;
/** The largest per-call bound on artifact bytes written that may be set (1 TiB). */
export const MAX_OUTPUT_BYTES_CEILING = 1024 * 1024 * 1024 * 1024;
/** The largest per-call bound on artifact files written that may be set (100,000,000). */
export const MAX_OUTPUT_FILES_CEILING = 100_000_000;

/**
 * What the user may set: every field optional, positive integers. Built in a function marked
 * pure, so a bundle that uses none of it leaves zod out: the wasm worker's (it reads the
 * constants below; zod was 5,000 of its 8,500 lines, parsed in every worker thread).
 */
export const ExtensionLimits = /* @__PURE__ */ (() => z.strictObject({
  /** Guest memory: wasm linear memory (and Extism allocations); a Node.js process's V8 heap. */
  maxMemoryBytes: z.number().int().min(65_536).max(MAX_MEMORY_BYTES_CEILING).optional(),
  /** Deadline of one request to the extension, in milliseconds. */
  callTimeoutMs: z.number().int().positive().max(MAX_CALL_TIMEOUT_MS_CEILING).optional(),
  /** Largest JSON-RPC message in either direction (request to, response from), in bytes. */
  maxMessageBytes: z.number().int().min(1024).max(MAX_MESSAGE_BYTES_CEILING).optional(),
  /** Wasm only: the largest module accepted, checked before it is read and compiled, in bytes. */
  maxModuleBytes: z.number().int().min(1024).max(MAX_MODULE_BYTES_CEILING).optional(),
  /** Bytes of notifications (streamed artifacts aside) one call may send, and a wasm guest's logs, in bytes. */
  maxNotificationBytes: z.number().int().min(1024).max(MAX_NOTIFICATION_BYTES_CEILING).optional(),
  /** Bytes of artifacts (streamed and returned, as written to disk) one generate call may produce. */
  maxOutputBytes: z.number().int().min(1024).max(MAX_OUTPUT_BYTES_CEILING).optional(),
  /** Artifact files (streamed and returned) one generate call may produce. */
  maxOutputFiles: z.number().int().min(1).max(MAX_OUTPUT_FILES_CEILING).optional(),
}))();
/** What the user may set: every field optional, positive integers. */
export type ExtensionLimits = z.infer<typeof ExtensionLimits>;

/** The name of one user-settable limit. */
export type LimitName = keyof ExtensionLimits;

/** Defaults, the reference host's (architecture.md, Decisions). */
export const DEFAULT_LIMITS: Readonly<Required<ExtensionLimits>> = Object.freeze({
  maxMemoryBytes: 256 * 1024 * 1024,
  callTimeoutMs: 30_000,
  maxMessageBytes: 64 * 1024 * 1024,
  maxModuleBytes: 64 * 1024 * 1024,
  maxNotificationBytes: 64 * 1024 * 1024,
  maxOutputBytes: 4 * 1024 * 1024 * 1024,
  maxOutputFiles: 1_000_000,
});

/** How each limit is raised: the `mep` option, the manifest field and an example value. */
export const LIMIT_KNOBS: Readonly<Record<LimitName, { option: string; field: string; example: string }>> = Object.freeze({
  maxMemoryBytes: { option: '--max-memory', field: 'maxMemoryBytes', example: '512MiB' },
  callTimeoutMs: { option: '--call-timeout', field: 'callTimeoutMs', example: '120s' },
  maxMessageBytes: { option: '--max-message', field: 'maxMessageBytes', example: '256MiB' },
  maxModuleBytes: { option: '--max-module', field: 'maxModuleBytes', example: '128MiB' },
  maxNotificationBytes: { option: '--max-notifications', field: 'maxNotificationBytes', example: '256MiB' },
  maxOutputBytes: { option: '--max-output', field: 'maxOutputBytes', example: '8GiB' },
  maxOutputFiles: { option: '--max-output-files', field: 'maxOutputFiles', example: '2000000' },
});

/** The largest value each limit takes. */
export const LIMIT_CEILINGS: Readonly<Record<LimitName, number>> = Object.freeze({
  maxMemoryBytes: MAX_MEMORY_BYTES_CEILING,
  callTimeoutMs: MAX_CALL_TIMEOUT_MS_CEILING,
  maxMessageBytes: MAX_MESSAGE_BYTES_CEILING,
  maxModuleBytes: MAX_MODULE_BYTES_CEILING,
  maxNotificationBytes: MAX_NOTIFICATION_BYTES_CEILING,
  maxOutputBytes: MAX_OUTPUT_BYTES_CEILING,
  maxOutputFiles: MAX_OUTPUT_FILES_CEILING,
});

/** Internal limit names of the transports, mapped to the user's knob that sets them. */
const ALIASES: Record<string, LimitName> = {
  maxRequestBytes: 'maxMessageBytes',
  maxResponseBytes: 'maxMessageBytes',
  maxBodyBytes: 'maxMessageBytes',
  maxLineBytes: 'maxMessageBytes',
  timeoutMs: 'callTimeoutMs',
};

/** The user-facing limit behind an internal name (`maxResponseBytes` → `maxMessageBytes`). */
export function userLimitOf(name: string): LimitName | undefined {
  if (name in LIMIT_KNOBS) return name as LimitName;
  return ALIASES[name];
}

/** The smallest power of two above `n` (a size that fits it with room, and reads well: 256MiB). */
function powerOfTwoAbove(n: number): number {
  return 2 ** (Math.floor(Math.log2(Math.max(1, n))) + 1);
}

/**
 * The value to suggest for `limit`: when the amount that must fit (`needed`, e.g. a refused
 * message's measured size) is known, the power of two above it, so one retry is enough (a
 * 209,715,329-byte message gets 256MiB); otherwise twice `current` (or the default). Never
 * above the limit's ceiling; undefined when even the ceiling is too small for `needed`.
 */
export function suggestedLimit(limit: LimitName, current?: number, needed?: number): number | undefined {
  const ceiling = LIMIT_CEILINGS[limit];
  if (needed !== undefined && needed > 0) return needed > ceiling ? undefined : Math.min(ceiling, Math.max(powerOfTwoAbove(needed), current ?? 0));
  return Math.min(ceiling, 2 * (current !== undefined && current > 0 ? current : DEFAULT_LIMITS[limit]));
}

/**
 * The sentence every limit error ends with: which `mep` option and which `extension.json`
 * field raise `limit` (an internal name such as `maxResponseBytes` is mapped to the user's), with
 * the value of {@link suggestedLimit} as the example, e.g. `Raise it with --max-memory 512MiB on
 * the mep command line, or "limits": {"maxMemoryBytes": 536870912} in the extension's
 * extension.json`. When `needed` is above what any limit allows, it says so instead.
 *
 * @example
 * throw new MepError(LocalErrorCode.Limit, `… over its limit of ${n} bytes. ${raiseAdvice('maxMessageBytes', n, size)}`, { data: { limit: 'maxMessageBytes' } });
 */
export function raiseAdvice(limit: LimitName | string, current?: number, needed?: number): string {
  const name = userLimitOf(limit);
  if (name === undefined) return '';
  const knob = LIMIT_KNOBS[name];
  const value = suggestedLimit(name, current, needed);
  if (value === undefined) {
    const unit = name === 'maxOutputFiles' ? 'files' : 'bytes';
    const what = name === 'maxMessageBytes' ? 'a message cannot be that big: make it smaller (split the work, or ask the extension for less at once)' : 'give the extension less to do at once';
    return `No ${knob.option} is large enough: it allows at most ${formatLimit(name, LIMIT_CEILINGS[name])}, below the ${needed} ${unit} needed; ${what}.`;
  }
  return `Raise it with ${knob.option} ${formatLimit(name, value)} on the mep command line, or "limits": {"${knob.field}": ${value}} in the extension's extension.json (the option wins).`;
}

/**
 * {@link raiseAdvice} for several limits at once, when one failure needs them all raised (a wasm
 * guest that ran out of memory writing an answer also too big for the message limit): one
 * sentence naming every option and field, so a single retry is enough.
 */
export function raiseAllAdvice(items: readonly { limit: LimitName; current?: number; needed?: number }[]): string {
  const values = items.map((item) => ({ ...item, value: suggestedLimit(item.limit, item.current, item.needed) }));
  const impossible = values.find((v) => v.value === undefined);
  if (impossible) return raiseAdvice(impossible.limit, impossible.current, impossible.needed);
  const options = values.map((v) => `${LIMIT_KNOBS[v.limit].option} ${formatLimit(v.limit, v.value as number)}`).join(' ');
  const fields = values.map((v) => `"${LIMIT_KNOBS[v.limit].field}": ${v.value}`).join(', ');
  return `Raise ${values.length === 1 ? 'it' : 'them'} with ${options} on the mep command line, or "limits": {${fields}} in the extension's extension.json (the options win).`;
}

/** A limit's value as the `mep` option writes it: `512MiB`, `1.5GiB`, `60s`, `250ms`. */
export function formatLimit(name: LimitName, value: number): string {
  if (name === 'callTimeoutMs') return value % 1000 === 0 ? `${value / 1000}s` : `${value}ms`;
  if (name === 'maxOutputFiles') return String(value);
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (value >= size && value % (size / 4) === 0) return `${value / size}${unit}`;
  }
  return String(value);
}

/**
 * What the host reads from a file on anyone's behalf, bounded before it is read (the file is
 * checked to be a regular file first: a FIFO, a device or a socket is refused unopened). Each is
 * an `ERR_LIMIT` naming the file and, where one raises it, the option.
 */
export const HOST_FILE_LIMITS = Object.freeze({
  /** `extensions.lock`: the claims in it are bounded where they are pinned. */
  lockBytes: 16 * 1024 * 1024,
  /** `config.json`, `extension.json`, `morphir.json`, the publish journal, a `file("…")` secret. */
  smallFileBytes: 1024 * 1024,
  /** A `<file>.lock` that serialises changes of the lock or the trust record: mep writes its pid and a line feed; a larger one is not mep's (`not-a-lock`). */
  lockFileBytes: 64,
  /** A file of a package hashed or copied: an artifact, a `files` member (the largest wasm module). */
  artifactBytes: MAX_MODULE_BYTES_CEILING,
  /** A local source file read to show a diagnostic's line (one the extension names): a larger one is shown without its line. */
  shownSourceBytes: 1024 * 1024,
  /** A package's `SHA256SUMS`. */
  sumsBytes: 16 * 1024 * 1024,
  /** An input file (`--input`, `--ir`, `@params.json`, a local dependency's IR, a source file): the largest message. */
  inputBytes: MAX_MESSAGE_BYTES_CEILING,
  /** A project's `.mep/compile-baseline.json` (sent back in one compile request: the largest message); a larger one is ignored. */
  compileBaselineBytes: MAX_MESSAGE_BYTES_CEILING,
  /** Source files one compile sends (`mep compile --max-sources`). */
  sourceFiles: 10_000,
  /** Directory entries looked at per source file allowed, while finding them under `sourceDirectory`. */
  entriesPerSourceFile: 10,
  /** Folders nested under `sourceDirectory` that are walked (deeper is ERR_LIMIT `sourceDepth`, before a path passes PATH_MAX). */
  sourceDepth: 64,
  /**
   * Folders `mep compile --watch` and `mep build --watch` watch (each one by one, never recursively: one inotify watch
   * each on Linux, shared by every program of the user); past it the shallowest are watched and a
   * line says so.
   */
  watchedFolders: 2048,
});

/**
 * Bounds the host fixes on what an untrusted party (an extension, a package, a served client)
 * makes it decode, store or print. None is set per extension: no real extension comes near them,
 * and what is pinned or printed must not depend on a flag. Each is enforced where the resource is
 * taken and reported as ERR_LIMIT with its name in `data.limit`.
 */
export const HOST_BOUNDS = Object.freeze({
  /**
   * Extism memory blocks a wasm guest may allocate in one call (each log line takes one). The
   * Extism JS SDK addresses block n as n << 48, a signed i64 in the guest: past this the address
   * is negative and names no block. Further allocations are refused (address 0); log lines that
   * needed one are counted and said in one line at the end of the call.
   */
  maxExtismBlocks: 32_767,
  /**
   * What one log line of a wasm guest (Extism's `log_*`) costs its call's notification budget
   * besides its characters: the host delivers and prints each line however short, so an empty
   * one is not free (about what a process extension's `morphir.log` envelope costs it).
   */
  logLineBytes: 64,
  /**
   * Bytes of Extism variables (`var_set`: keys and values together) one wasm instance keeps, as
   * Extism's own runtime keeps 1 MiB by default (`max_var_bytes`); the SDK kept them unbounded
   * for the instance's life, outside the memory cap.
   */
  maxExtismVarBytes: 1024 * 1024,
  /** The progress status line is redrawn at most once per this many ms; reports between are coalesced into the latest. */
  statusIntervalMs: 50,
  /** What an extension says about itself (claim set, initialize result, info, capabilities): its JSON size, in characters. */
  maxMetadataChars: 64 * 1024,
  /** … its nesting, in levels (the root is level 1). */
  maxMetadataDepth: 16,
  /** … the members of one array or object. */
  maxMetadataItems: 1024,
  /** … the length of one string or key. */
  maxMetadataStringLength: 4096,
  /** A guest's source map (`mep.sourcemap` section, or a process entry's `.map`): bytes decoded at most. */
  maxSourceMapBytes: 8 * 1024 * 1024,
  /** Time a session may spend reading its source map and mapping stacks through it, in ms in all; past it, errors are reported unmapped, with a note. */
  sourceMapMs: 2_000,
  /** Frames of one stack mapped at most; the rest are kept as they are. */
  maxMappedFrames: 64,
  /** Combining marks shown on one character (UAX #15's stream-safe limit); more are escaped. */
  maxCombiningMarks: 30,
  /** One line `mep` prints on stdout or stderr, in characters; a longer one is cut with a note (`--json` keeps all). */
  maxLineChars: 64 * 1024,
  /** The progress line on a terminal, in characters. */
  maxStatusChars: 160,
  /** Error data `--verbose` shows on stderr, in characters (`--json` prints all of it). */
  maxShownDetailChars: 256 * 1024,
  /**
   * Levels of indented JSON output (`--json`, IR files); deeper values are written compact, so
   * indentation makes output at most about 33 times the compact JSON, whatever its shape.
   */
  maxIndentedLevels: 32,
  /** JSON output is written in chunks of about this many characters, never as one string. */
  jsonChunkChars: 64 * 1024,
  /**
   * A value whose JSON is at most this many characters, counted before it is made (every string
   * character as a 6-character escape, every member with its indentation), is written from one
   * `JSON.stringify` (native, 3–5 ms less for a 100 KB IR than the chunked walk in cold JS) and
   * handed on in chunks of `jsonChunkChars`; anything bigger is written chunk by chunk.
   */
  jsonWholeChars: 1024 * 1024,
  /**
   * What the host has written to a process extension's stdin that it has not read yet, in bytes
   * (Node.js's buffer; the pipe holds 64 KiB more): past it the host stops reading the
   * extension's stdout, which holds it back.
   */
  maxStdinBacklogBytes: 16 * 1024 * 1024,
  /** How long a process extension held by {@link HOST_BOUNDS.maxStdinBacklogBytes} may go on not reading its stdin before it is ended, in ms. */
  stdinStallMs: 10_000,
  /** Requests a process extension may have sent the host and not had answered yet. */
  maxOutstandingRequests: 64,
  /**
   * What the host holds queued for a wasm guest behind its running call, in bytes of the encoded
   * messages not started yet: a new request of the host past it is refused unsent (ERR_LIMIT),
   * as a process extension's is past {@link HOST_BOUNDS.maxStdinBacklogBytes}. Without it a
   * caller pipelining calls to a busy guest (a `mep serve` client: 64 calls of 64 MiB) had every
   * one held, encoded, until it ran.
   */
  maxQueuedRequestBytes: 16 * 1024 * 1024,
});

/** The name of one host bound. */
export type HostBound = keyof typeof HOST_BOUNDS;

/**
 * The shape a wasm module may have, checked before it is compiled (transport/wasm/module-shape.ts):
 * what compiling and instantiating it can cost the host is bounded by these, whatever the
 * module. In line with V8's own embedder limits (wasm-limits.h) and tighter where a guest of this
 * runtime (QuickJS and its glue) needs far less: each is many times what the real guest uses.
 * Exceeding one is ERR_LIMIT with its name in `data.limit`; none is set per extension.
 */
export const WASM_MODULE_BOUNDS = Object.freeze({
  /** Function types (the guest: about 100; V8: 1,000,000). */
  types: 10_000,
  /** Imports (the guest: under 20; V8: 100,000). */
  imports: 1_000,
  /** Functions, imported and defined (the guest: about 1,300; V8: 1,000,000). */
  functions: 100_000,
  /** Tables (the guest: 1; V8: 100,000). */
  tables: 16,
  /** Memories: one, so the memory cap is the guest's whole linear memory. */
  memories: 1,
  /** Globals (the guest: 1; V8: 1,000,000). */
  globals: 100_000,
  /** Exports (the guest: under 10; V8: 100,000). */
  exports: 10_000,
  /** Element segments (the guest: 1). */
  elementSegments: 10_000,
  /** Data segments (the guest: up to about 15,000; V8: 100,000). */
  dataSegments: 100_000,
  /** Bytes of custom sections in all (names, source map; the guest: about 0.5 MiB). */
  customSectionBytes: 32 * 1024 * 1024,
  /** Bytes of one function body (the guest: under 40 KB; V8: 7,654,321). */
  functionBodyBytes: 2 * 1024 * 1024,
  /** Locals of one function (the guest: 40; V8: 50,000). */
  functionLocals: 10_000,
  /** Nesting of blocks in one function (the guest: under 300). */
  blockDepth: 10_000,
  /** Blocks, `else`s and branch targets of one function (the guest: under 2,500). */
  functionControl: 1_000_000,
  /**
   * (Locals + operand stack height) × control points of one function, what compiling it costs
   * the engine in time and memory (V8's baseline compiler saves the locals' and the stack's state
   * at every block and branch; with no locals, 50,000 values at 5,000 blocks took 71 s): the
   * guest's worst is about 110,000; at this bound one function compiles in well under a second
   * (a compile is not interrupted within a function, only between two), 20,000,000 takes seconds.
   */
  functionCompileCost: 2_000_000,
  /** … summed over the module's functions (the guest: about 650,000). */
  moduleCompileCost: 8_000_000,
  /**
   * Entries of one table, initial and at most: a table declaring no maximum, or a larger one, is
   * capped to this, so `table.grow` stops there (the guest: under 600, and the host adds 8).
   */
  tableEntries: 65_536,
  /**
   * Entries of all element segments together: what the tables can hold (16 × 65,536). V8 makes
   * a passive segment a heap array at its first `table.init` (8 bytes an entry, outside linear
   * memory): six of 10,000,000 one-byte entries in a 60 MB module took the host's RSS past
   * 750 MB (the guest: one segment of about 550).
   */
  elementEntries: 1_048_576,
});

/** The name of one wasm module bound. */
export type WasmModuleBound = keyof typeof WASM_MODULE_BOUNDS;
