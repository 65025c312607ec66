/**
 * What an archive may cost to install: a byte budget (the archive file itself, and the bytes it
 * unpacks to) and an entry-count budget. Readers count as they stream, so a gzip bomb or an
 * archive of a million empty files fails at the budget, with memory bounded, never at the end.
 */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { MAX_CALL_TIMEOUT_MS_CEILING } from '../../protocol/limits.ts';

/** Budgets of one archive install. */
export interface ArchiveLimits {
  /**
   * Most bytes the archive may unpack to (every member's data plus the tar stream's own
   * headers), and the most the archive file itself may take. `mep install --max-unpacked`.
   */
  maxBytes: number;
  /** Most members (files, directories, links). `mep install --max-entries`. */
  maxEntries: number;
  /**
   * Longest a remote source may take to arrive, in ms: an archive's download, a git clone and
   * listing and checkout together. A server that never answers or trickles is stopped then.
   * `mep install --fetch-timeout`.
   */
  maxFetchMs: number;
}

/**
 * Defaults: 512 MiB (a package carrying native executables for several platforms stays well
 * below it) and 10,000 members (a package ships its entry and the files it lists, not a tree).
 */
export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({ maxBytes: 512 * 1024 * 1024, maxEntries: 10_000, maxFetchMs: 10 * 60_000 });


/** The option of `mep install` that raises each budget, named in its error. */
const OPTION = { bytes: '--max-unpacked', entries: '--max-entries' } as const;

/** A running count against {@link ArchiveLimits}. */
export interface ArchiveBudget {
  readonly limits: Readonly<ArchiveLimits>;
  /** Counts `n` more bytes; throws the budget error past {@link ArchiveLimits.maxBytes}. */
  bytes(n: number): void;
  /** Counts one more member; throws the budget error past {@link ArchiveLimits.maxEntries}. */
  entry(): void;
}

function formatBytes(n: number): string {
  return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB` : `${n} bytes`;
}

/**
 * The typed error of an exceeded budget: MepError(ERR_LIMIT) with `data.reason:
 * 'archive-budget'`, the budget (`bytes` or `entries`), its limit and the option that raises it.
 */
export function budgetError(archive: string, budget: keyof typeof OPTION, limit: number, what = 'unpacks to more than', noun: BudgetedSource = 'archive'): MepError {
  const amount = budget === 'bytes' ? formatBytes(limit) : `${limit} members`;
  const raise = budget === 'bytes' ? `${OPTION.bytes} ${formatBytes(limit * 2).replace(' ', '')}` : `${OPTION.entries} ${limit * 2}`;
  return new MepError(
    LocalErrorCode.Limit,
    `Refusing the ${noun} ${archive}: it ${budget === 'bytes' ? what : 'has more than'} ${amount} (the install's ${budget === 'bytes' ? 'byte' : 'entry'} budget); nothing was installed. If you trust it, raise the budget with 'mep install … ${raise}' (archiveLimits.${budget === 'bytes' ? 'maxBytes' : 'maxEntries'} in the library).`,
    { data: { archive, reason: 'archive-budget', budget, limit, option: OPTION[budget] } },
  );
}

/** What the budget is spent on: an archive's members, or a git commit's tree (checked out as files). */
export type BudgetedSource = 'archive' | 'repository';

/** The limits with defaults filled in, checked to be positive integers. */
export function archiveLimitsOf(limits: Partial<ArchiveLimits> = {}): Readonly<ArchiveLimits> {
  const out = { ...DEFAULT_ARCHIVE_LIMITS, ...limits };
  for (const [name, value] of Object.entries(out)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new MepError(LocalErrorCode.Usage, `archiveLimits.${name} must be a positive integer, got ${String(value)}.`, { data: { limit: name, value } });
    }
    if (name === 'maxFetchMs' && value > MAX_CALL_TIMEOUT_MS_CEILING) {
      throw new MepError(LocalErrorCode.Usage, `archiveLimits.maxFetchMs (--fetch-timeout) must be at most ${MAX_CALL_TIMEOUT_MS_CEILING} ms (about 24 days, what a timer holds), got ${value}.`, { data: { limit: name, value } });
    }
  }
  return out;
}

/** The deadline of fetching a remote source; see {@link startFetchDeadline}. */
export interface FetchDeadline {
  /** Aborted at the deadline: stop the download or git with it. */
  readonly signal: AbortSignal;
  /** The deadline's error once it passed (ERR_TIMEOUT), else undefined. */
  passed(): MepError | undefined;
  /** Stops the timer. */
  stop(): void;
}

/**
 * Starts the clock of fetching `source` within `limits.maxFetchMs`. Held by the caller until
 * `stop()` (a plain timer, not AbortSignal.timeout, which may be collected before it fires).
 *
 * @example
 * const deadline = startFetchDeadline(limits, spec);
 * try { await fetch(url, { signal: deadline.signal }); } catch (e) { throw deadline.passed() ?? e; } finally { deadline.stop(); }
 */
export function startFetchDeadline(limits: Readonly<ArchiveLimits>, source: string): FetchDeadline {
  const abort = new AbortController();
  let error: MepError | undefined;
  const timer = setTimeout(() => {
    error = new MepError(
      LocalErrorCode.Timeout,
      `Fetching ${source} took longer than ${limits.maxFetchMs} ms (the install's fetch deadline); nothing was installed. Check the server, or if it is only slow, raise the deadline with 'mep install … --fetch-timeout ${Math.ceil((limits.maxFetchMs * 2) / 60_000)}m' (archiveLimits.maxFetchMs in the library).`,
      { data: { source, reason: 'fetch-deadline', limit: 'maxFetchMs', option: '--fetch-timeout', ms: limits.maxFetchMs } },
    );
    abort.abort(error);
  }, limits.maxFetchMs);
  return { signal: abort.signal, passed: () => error, stop: () => clearTimeout(timer) };
}

/**
 * A fresh count for one pass over `archive`.
 *
 * @example
 * const budget = createArchiveBudget(archiveLimitsOf(options.archiveLimits), url);
 * budget.entry(); budget.bytes(chunk.length);
 */
export function createArchiveBudget(limits: Readonly<ArchiveLimits>, archive: string, noun: BudgetedSource = 'archive'): ArchiveBudget {
  let bytes = 0;
  let entries = 0;
  return {
    limits,
    bytes(n) {
      bytes += n;
      if (bytes > limits.maxBytes) throw budgetError(archive, 'bytes', limits.maxBytes, noun === 'archive' ? undefined : 'checks out to more than', noun);
    },
    entry() {
      entries += 1;
      if (entries > limits.maxEntries) throw budgetError(archive, 'entries', limits.maxEntries, undefined, noun);
    },
  };
}
