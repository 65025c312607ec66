/**
 * The early start of an operation on a `.wasm` file given by path (issue 32), once the launch plan
 * found one (early-start.ts): `mep compile`'s (early-compile.ts), or `mep generate`, `validate`
 * and `transform`'s: the command line parsed with the command's own flag table, the input file read
 * (input-ahead.ts) and the module prepared and instantiated (early-module.ts) while the command
 * loads, instead of after it has loaded. Anything unusual (a flag the command refuses, a missing
 * required flag, a stray argument, an extension that is not a file) starts nothing: the command
 * then finds and reports it exactly as without an early start.
 */
import { stat } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { GrantFlagValues } from './commands/grant-flags.ts';
import type { LimitFlagValues } from './commands/limit-flags.ts';
import { looksLikePath } from './commands/extension-path.ts';
import { GENERATE_FLAGS, REQUIRED_FLAGS, TRANSFORM_FLAGS, VALIDATE_FLAGS } from './commands/operation-flags.ts';
import { startCompile } from './early-compile.ts';
import { startModule } from './early-module.ts';
import { readInputAhead } from './input-ahead.ts';

/** The operations that read one input file, by their flag tables and required flags (the tables their commands check). */
const INPUT_OPERATIONS = {
  generate: { flags: GENERATE_FLAGS, required: REQUIRED_FLAGS.generate },
  validate: { flags: VALIDATE_FLAGS, required: REQUIRED_FLAGS.validate },
  transform: { flags: TRANSFORM_FLAGS, required: REQUIRED_FLAGS.transform },
} as const;

/** An input operation's command line the early start can get going. */
export interface EarlyInputOperation {
  /** The `--extension` value: a path to a `.wasm` file, as given. */
  extension: string;
  /** The `--input` value, as given. */
  input: string;
  /** The flags, parsed with the command's own table. */
  values: LimitFlagValues & GrantFlagValues & { extension: string; input: string };
}

/**
 * The generate, validate or transform line with a `.wasm` file given by path, every required flag
 * and no stray argument, or undefined for anything else (another command, `--help`, an installed
 * id, a process extension, or a line its command would refuse).
 */
export function earlyInputOperationOf(argv: readonly string[]): EarlyInputOperation | undefined {
  const [command, ...args] = argv;
  const operation = command !== undefined && Object.hasOwn(INPUT_OPERATIONS, command) ? INPUT_OPERATIONS[command as keyof typeof INPUT_OPERATIONS] : undefined;
  if (operation === undefined) return undefined;
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: operation.flags as ParseArgsConfig['options'], allowPositionals: true, strict: true });
  } catch {
    return undefined;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0 || operation.required.some((flag) => !values[flag])) return undefined;
  const { extension, input } = values;
  if (typeof extension !== 'string' || typeof input !== 'string') return undefined;
  if (!looksLikePath(extension) || extname(extension).toLowerCase() !== '.wasm') return undefined;
  return { extension, input, values: values as unknown as EarlyInputOperation['values'] };
}

/**
 * Starts what `argv`'s operation needs before its command loads; resolves once the module is
 * under way, with the promise of it (handled), or undefined when nothing was started. Never rejects.
 */
export async function startOperation(argv: readonly string[], cwd: string = process.cwd()): Promise<{ module: Promise<WebAssembly.Module> } | undefined> {
  if (argv[0] === 'compile') return startCompile(argv, cwd);
  const early = earlyInputOperationOf(argv);
  if (early === undefined) return undefined;
  try {
    const path = resolve(cwd, early.extension);
    const file = await stat(path);
    if (!file.isFile()) return undefined;
    readInputAhead(resolve(cwd, early.input));
    return await startModule({ extension: early.extension, path, file, values: early.values });
  } catch {
    return undefined;
  }
}
