/**
 * `--max-memory`, `--call-timeout`, `--max-message`, and for wasm `--max-module` and
 * `--max-notifications`, and for what one generate call writes `--max-output` and
 * `--max-output-files`: the resource limits of the extension a command runs, with units
 * (`512MiB`, `120s`). They win over the `limits` of the extension's `extension.json`, which win
 * over the defaults (256 MiB, 30 s, 64 MiB, 64 MiB, 64 MiB, 4 GiB, 1,000,000 files).
 */
import { DEFAULT_LIMITS, ExtensionLimits, LIMIT_CEILINGS, LIMIT_KNOBS, type LimitName } from '../../protocol/limits.ts';
import { UsageError } from '../exit-codes.ts';

/** parseArgs options of the limit flags, for every command that runs an extension. */
export const LIMIT_FLAGS = {
  'max-memory': { type: 'string' },
  'call-timeout': { type: 'string' },
  'max-message': { type: 'string' },
  'max-module': { type: 'string' },
  'max-notifications': { type: 'string' },
  'max-output': { type: 'string' },
  'max-output-files': { type: 'string' },
} as const;

/** The help lines for {@link LIMIT_FLAGS}. */
export const LIMIT_HELP = `  --max-memory SIZE   guest memory of the extension: wasm linear memory, or a Node.js
                      process's heap (default 256MiB; e.g. 512MiB, 2GiB)
  --call-timeout TIME deadline of each request to the extension (default 30s; e.g. 500ms, 120s, 5m)
  --max-message SIZE  largest JSON-RPC message to or from the extension (default 64MiB, at most 511MiB)
  --max-module SIZE   wasm: largest module accepted, checked before it is compiled (default 64MiB)
  --max-notifications SIZE  bytes of notifications (and wasm logs) one call may send (default 64MiB)
  --max-output SIZE   bytes of artifacts one generate call may write, streamed and returned
                      (default 4GiB)
  --max-output-files N  artifact files one generate call may write (default 1000000)
                      These win over "limits" in the extension's extension.json.`;

/** The parsed flag values, as parseArgs returns them. */
export interface LimitFlagValues {
  'max-memory'?: string;
  'call-timeout'?: string;
  'max-message'?: string;
  'max-module'?: string;
  'max-notifications'?: string;
  'max-output'?: string;
  'max-output-files'?: string;
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
};
const TIME_UNITS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };
const NUMBER_AND_UNIT = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/**
 * A byte size: a number with an optional unit (`B`, `KB`/`MB`/`GB` decimal, `KiB`/`MiB`/`GiB`
 * or `K`/`M`/`G` binary). Throws UsageError naming the flag and showing valid forms.
 */
export function parseSize(flag: string, text: string): number {
  const match = NUMBER_AND_UNIT.exec(text.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) {
    throw new UsageError(`${flag} expects a size such as 512MiB, 2GiB or 67108864 (bytes), got ${JSON.stringify(text)}.`);
  }
  return Math.floor(Number(match[1]) * unit);
}

/**
 * A duration with a unit (`ms`, `s`, `m`/`min`, `h`). A bare number is refused: `120` could mean
 * seconds or milliseconds. Throws UsageError naming the flag.
 */
export function parseDuration(flag: string, text: string): number {
  const match = NUMBER_AND_UNIT.exec(text.trim());
  const unit = TIME_UNITS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) {
    const bare = match && match[2] === '' ? ` (add a unit: ${match[1]}s or ${match[1]}ms)` : '';
    throw new UsageError(`${flag} expects a duration such as 500ms, 120s or 5m, got ${JSON.stringify(text)}${bare}.`);
  }
  return Math.round(Number(match[1]) * unit);
}

const bytes = (n: number): string => `${n} bytes`;
const BOUNDS: Record<LimitName, { min: number; max: number; show: (n: number) => string }> = {
  maxMemoryBytes: { min: 65_536, max: LIMIT_CEILINGS.maxMemoryBytes, show: bytes },
  callTimeoutMs: { min: 1, max: LIMIT_CEILINGS.callTimeoutMs, show: (n) => `${n} ms` },
  maxMessageBytes: { min: 1024, max: LIMIT_CEILINGS.maxMessageBytes, show: bytes },
  maxModuleBytes: { min: 1024, max: LIMIT_CEILINGS.maxModuleBytes, show: bytes },
  maxNotificationBytes: { min: 1024, max: LIMIT_CEILINGS.maxNotificationBytes, show: bytes },
  maxOutputBytes: { min: 1024, max: LIMIT_CEILINGS.maxOutputBytes, show: bytes },
  maxOutputFiles: { min: 1, max: LIMIT_CEILINGS.maxOutputFiles, show: (n) => `${n} files` },
};

/** Each size flag and the limit it sets (`--call-timeout` is the one duration). */
const SIZE_FLAGS = [
  ['max-memory', 'maxMemoryBytes'],
  ['max-message', 'maxMessageBytes'],
  ['max-module', 'maxModuleBytes'],
  ['max-notifications', 'maxNotificationBytes'],
  ['max-output', 'maxOutputBytes'],
] as const;

function bounded(name: LimitName, value: number): number {
  const { min, max, show } = BOUNDS[name];
  const flag = LIMIT_KNOBS[name].option;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${flag} must be between ${show(min)} and ${show(max)}, got ${show(value)} (default ${show(DEFAULT_LIMITS[name])}).`);
  }
  return value;
}

/**
 * The limits given on the command line (only those given), parsed and range-checked.
 * Throws UsageError for a malformed or out-of-range value.
 */
export function parseLimitFlags(values: LimitFlagValues): ExtensionLimits {
  const limits: ExtensionLimits = {};
  for (const [flag, name] of SIZE_FLAGS) {
    const text = values[flag];
    if (text !== undefined) limits[name] = bounded(name, parseSize(`--${flag}`, text));
  }
  const files = values['max-output-files'];
  if (files !== undefined) {
    if (!/^\d+$/.test(files.trim())) throw new UsageError(`--max-output-files expects a whole number of files such as 1000000, got ${JSON.stringify(files)}.`);
    limits.maxOutputFiles = bounded('maxOutputFiles', Number(files.trim()));
  }
  if (values['call-timeout'] !== undefined) limits.callTimeoutMs = bounded('callTimeoutMs', parseDuration('--call-timeout', values['call-timeout']));
  // The same schema as the manifest's, so both paths accept exactly the same values.
  return ExtensionLimits.parse(limits);
}
