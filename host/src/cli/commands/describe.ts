/** `mep describe <extension>`: print the extension's capability claim set. */
import { readClaimSet } from '../../session/read-claims.ts';
import { openTransport } from '../../registry/launch.ts';
import { ExitCode } from '../exit-codes.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';

export const describeCommand: Command = {
  summary: "print an extension's capability claim set",
  help: `Usage: mep describe <extension> [--timeout MS]

Reads the claim set with morphir.extension.describe (or, for an extension without describe,
through a short session) and prints it as JSON. <extension> is a .wasm module, a .js/.mjs file,
an executable, or the id of an installed extension.

  --timeout MS   give up on an extension that does not answer (default 10000)`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { timeout: { type: 'string' } }, 'describe');
    const spec = await resolveExtensionArgument(onePositional(positionals, 'extension', 'describe'), io);
    const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
    const transport = await openTransport(spec);
    const { claims, source } = await readClaimSet({ transport, requestTimeoutMs: timeoutMs, shutdownTimeoutMs: timeoutMs });
    if (io.verbose) io.err(`claims read through ${source}`);
    io.out(JSON.stringify(claims, null, 2));
    return ExitCode.Ok;
  },
};
