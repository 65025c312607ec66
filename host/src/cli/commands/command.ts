/** The shape of one `mep` subcommand and shared flag parsing. */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../exit-codes.ts';
import type { Io } from '../io.ts';

/** One subcommand. */
export interface Command {
  /** One line for `mep --help`. */
  summary: string;
  /** Full text for `mep <command> --help`. */
  help: string;
  run(argv: string[], io: Io): Promise<number>;
}

/** `node:util` parseArgs with strict checking, turning its errors into {@link UsageError}s. */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  command: string,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. Run 'mep ${command} --help'.`);
  }
}

/** The single positional argument a command needs, or a usage error naming it. */
export function onePositional(positionals: string[], what: string, command: string): string {
  if (positionals.length !== 1) {
    throw new UsageError(`expected exactly one ${what}, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}. Run 'mep ${command} --help'.`);
  }
  return positionals[0] as string;
}
