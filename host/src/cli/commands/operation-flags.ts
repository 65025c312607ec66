/**
 * The flags of the operation commands (compile, generate, validate, transform), apart from the
 * commands themselves: the early start (cli/early-compile.ts, cli/early-operation.ts) reads a command line with the very
 * table its command will, before the command loads.
 */
import { GRANT_FLAGS, GRANT_HELP } from './grant-flags.ts';
import { LIMIT_FLAGS, LIMIT_HELP } from './limit-flags.ts';

/** parseArgs options every operation command accepts. */
export const OPERATION_FLAGS = {
  extension: { type: 'string' },
  option: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  transcript: { type: 'string' },
  'transcript-unredacted': { type: 'boolean' },
  'cancel-grace': { type: 'string' },
  ...LIMIT_FLAGS,
  ...GRANT_FLAGS,
} as const;

/** The help lines for {@link OPERATION_FLAGS}. */
export const OPERATION_HELP = `  --extension EXT   use this provider: an installed id, or the path of a .wasm module, a
                    .js/.mjs file or an executable, written as a path (./x.wasm; a bare name
                    is always an installed id) (default: the installed extension whose claims fit)
  --option k=v      an option for the extension; the value is parsed as JSON when valid (repeatable)
  --json            print the machine-readable result on stdout instead of the human report
  --verbose         extension identity, timings and the extension's log on stderr
  --transcript F    write every JSON-RPC message to F (JSON lines); source text and secret
                    values are redacted
  --transcript-unredacted  keep source text in the transcript (secret values stay redacted)
  --cancel-grace MS after the first Ctrl+C (sent as $/cancelRequest), how long the extension has
                    to stop before it is ended (default 2000; a second Ctrl+C ends it at once)
${LIMIT_HELP}
${GRANT_HELP}`;

/** parseArgs options of `mep compile`. */
export const COMPILE_FLAGS = {
  lang: { type: 'string' },
  output: { type: 'string' },
  'max-sources': { type: 'string' },
  'source-root': { type: 'string', multiple: true },
  watch: { type: 'boolean' },
  ...OPERATION_FLAGS,
} as const;

/** parseArgs options of `mep generate`. */
export const GENERATE_FLAGS = { target: { type: 'string' }, input: { type: 'string' }, output: { type: 'string' }, ...OPERATION_FLAGS } as const;

/** parseArgs options of `mep validate`. */
export const VALIDATE_FLAGS = { input: { type: 'string' }, ...OPERATION_FLAGS } as const;

/** parseArgs options of `mep transform`. */
export const TRANSFORM_FLAGS = { input: { type: 'string' }, output: { type: 'string' }, ...OPERATION_FLAGS } as const;

/**
 * The flags each input operation requires: its command refuses a line without them
 * (`requireFlags`), and the early start (early-operation.ts) starts nothing for one.
 */
export const REQUIRED_FLAGS = {
  generate: ['input', 'output'],
  validate: ['input'],
  transform: ['input', 'output'],
} as const satisfies Record<string, readonly string[]>;
