/**
 * The `mep` command: parses the command line, calls the library, renders the outcome and maps it
 * to a documented exit code. No protocol logic lives here.
 */
import { isMepError, LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_VERSION } from '../session/host-info.ts';
import { ExitCode, UsageError } from './exit-codes.ts';
import { commands } from './commands/index.ts';
import type { Io } from './io.ts';
import { processIo } from './io.ts';
import { errorDetailLines } from './render-error.ts';
import { keepShapeVerdicts, shapeVerdictsWritten } from '../registry/shape-verdicts.ts';

const HELP = `mep — run Morphir Extension Protocol (MEP 0.1) extensions, sandboxed in wasm or as processes

Usage: mep <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(13)}${c.summary}`)
  .join('\n')}

Run 'mep <command> --help' for a command's options.
Exit codes: 0 ok · 1 diagnostics with errors or failed checks · 2 usage · 3 extension or protocol failure`;

/** Runs the CLI with `argv` (without node and script) and returns the exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    printLines(io, HELP);
    return name === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  if (name === '--version' || name === '-v') {
    io.out(`mep-runtime ${HOST_VERSION}`);
    return ExitCode.Ok;
  }
  const entry = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!entry) {
    io.err(`mep: unknown command '${name}'. Run 'mep --help' for the list.`);
    return ExitCode.Usage;
  }
  try {
    const command = await entry.load();
    // A wasm extension's shape verdict is kept in $MEP_HOME for the next run (registry/shape-verdicts.ts).
    keepShapeVerdicts(true);
    if (rest.includes('--help') || rest.includes('-h')) {
      printLines(io, command.help);
      return ExitCode.Ok;
    }
    return await outputKept(name, await command.run(rest, io), io);
  } catch (error) {
    return await outputKept(name, reportError(name, error, io), io);
  } finally {
    // Before `mep` returns (and exits): a verdict written halfway is a `.tmp` left in $MEP_HOME.
    await shapeVerdictsWritten();
  }
}

/**
 * `code`, unless part of stdout was lost (a full disk: ENOSPC, EIO): then a failure, said on
 * stderr, so that `mep … > file` never leaves a cut file behind a success.
 */
async function outputKept(command: string, code: number, io: Io): Promise<number> {
  const lost = await io.stdoutLost?.();
  if (lost === undefined) return code;
  const error = new MepError(LocalErrorCode.Usage, `could not write to standard output (${lost}); what it printed is incomplete. Free space on the disk it writes to, or send the output elsewhere, and run it again.`, {
    data: { stream: 'stdout', errno: lost, reason: 'output-lost' },
  });
  io.err(`mep ${command}: ${error.message}`);
  return code === ExitCode.Ok ? ExitCode.ExtensionFailure : code;
}

/** `mep`'s own text of several lines, one write each (io indents a line break inside one write). */
function printLines(io: Io, text: string, to: 'out' | 'err' = 'out'): void {
  for (const line of text.split('\n')) io[to](line);
}

function reportError(command: string, error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`mep ${command}: ${error.message}`);
    return ExitCode.Usage;
  }
  if (isMepError(error)) {
    // A build's diagnostics are the author's own code (mep build): one line each, at column 0,
    // where editors read `file:line:col`. Any other message may carry an extension's text, whose
    // line breaks io indents.
    if (error.code === LocalErrorCode.Build) printLines(io, `mep ${command}: ${error.message}`, 'err');
    else io.err(`mep ${command}: ${error.message}`);
    for (const line of errorDetailLines(error.data, io.verbose)) io.err(line);
    return error.code === LocalErrorCode.Usage ? ExitCode.Usage : error.code === LocalErrorCode.Build ? ExitCode.Diagnostics : ExitCode.ExtensionFailure;
  }
  io.err(`mep ${command}: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return ExitCode.ExtensionFailure;
}
