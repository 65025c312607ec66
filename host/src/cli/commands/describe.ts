/** `mep describe <extension>`: print the extension's capability claim set. */
import { readClaimSet } from '../../session/read-claims.ts';
import { openTransport } from '../../registry/launch.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { withJsonErrors } from './operation.ts';
import { formatWasmAbi, wasmAbiOf } from './wasm-abi.ts';

export const describeCommand: Command = {
  summary: "print an extension's capability claim set",
  help: `Usage: mep describe <extension> [--timeout MS] [--json] [--verbose]

Prints the claim set as JSON, and for a wasm module which guest ABI it needs on stderr. For an installed extension id, the artifact is first checked
against the lock and the pinned claim set is printed (read and pinned now if it was installed
without a probe). For a .wasm module, a .js/.mjs file or an executable, the claims are read with
morphir.extension.describe (or, for an extension without describe, through a short session).

  --timeout MS   give up on an extension that does not answer (default 10000)
  --json         on failure, also print {"success": false, "error": …} on stdout`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { timeout: { type: 'string' }, verbose: { type: 'boolean' }, json: { type: 'boolean' } }, 'describe');
    // The output is JSON either way; --json adds the error object on stdout when it fails.
    return withJsonErrors(io, values.json, async () => {
      io.verbose = io.verbose || Boolean(values.verbose);
      const resolved = await resolveExtensionArgument(onePositional(positionals, 'extension', 'describe'), io);
      // stdout stays the claim set alone, so it can be piped into other tools.
      if (resolved.spec.runtime === 'wasm') io.err(formatWasmAbi(await wasmAbiOf(resolved.spec.path)));
      if (resolved.claims) {
        if (io.verbose) io.err(`claims of ${resolved.installed?.id} pinned in ${resolved.installed?.lock}`);
        io.out(JSON.stringify(resolved.claims, null, 2));
        return ExitCode.Ok;
      }
      const timeoutMs = values.timeout === undefined ? 10_000 : Number(values.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout expects a positive number of milliseconds, got '${values.timeout}'.`);
      const transport = await openTransport(resolved.spec);
      const { claims, source } = await readClaimSet({ transport, requestTimeoutMs: timeoutMs, shutdownTimeoutMs: timeoutMs });
      if (io.verbose) io.err(`claims read through ${source}`);
      io.out(JSON.stringify(claims, null, 2));
      return ExitCode.Ok;
    });
  },
};
