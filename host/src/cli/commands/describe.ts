/** `mep describe <extension>`: print the extension's capability claim set. */
import { MAX_CALL_TIMEOUT_MS_CEILING } from '../../protocol/limits.ts';
import { readClaimSet } from '../../session/read-claims.ts';
import { openTransport } from '../../registry/launch.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { withJsonErrors } from './operation.ts';
import { formatWasmAbi, wasmAbiOf } from './wasm-abi.ts';
import { GRANT_FLAGS, GRANT_HELP, parseGrantFlags } from './grant-flags.ts';
import { LIMIT_FLAGS, LIMIT_HELP, parseLimitFlags } from './limit-flags.ts';
import { requestTimeoutOf } from '../../registry/launch-limits.ts';

export const describeCommand: Command = {
  summary: "print an extension's capability claim set",
  help: `Usage: mep describe <extension> [--call-timeout TIME] [--max-memory SIZE] [--max-message SIZE] [--json] [--verbose]

Prints the claim set as JSON, and for a wasm module which guest ABI it needs on stderr. For an installed extension id, the artifact is first checked
against the lock and the pinned claim set is printed (read and pinned now if it was installed
without a probe). For a .wasm module, a .js/.mjs file or an executable (given as a path,
./x.wasm: a bare name is always an installed id), the claims are read with
morphir.extension.describe (or, for an extension without describe, through a short session).

  --timeout MS   give up on an extension that does not answer (default 10000; --call-timeout wins)
  --json         on failure, also print {"success": false, "error": …} on stdout
${LIMIT_HELP}
${GRANT_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { timeout: { type: 'string' }, verbose: { type: 'boolean' }, json: { type: 'boolean' }, ...LIMIT_FLAGS, ...GRANT_FLAGS }, 'describe');
    // The output is JSON either way; --json adds the error object on stdout when it fails.
    return withJsonErrors(io, values.json, async () => {
      io.verbose = io.verbose || Boolean(values.verbose);
      const limits = parseLimitFlags(values);
      const resolved = await resolveExtensionArgument(onePositional(positionals, 'extension', 'describe'), io, { limits, grants: parseGrantFlags(values) });
      // stdout stays the claim set alone, so it can be piped into other tools.
      if (resolved.spec.runtime === 'wasm') io.err(formatWasmAbi(await wasmAbiOf(resolved.spec)));
      if (resolved.claims) {
        if (io.verbose) io.err(`claims of ${resolved.installed?.id} pinned in ${resolved.installed?.lock}`);
        await io.json(resolved.claims);
        return ExitCode.Ok;
      }
      const timeoutMs = limits.callTimeoutMs !== undefined ? requestTimeoutOf(resolved.spec) : values.timeout === undefined ? 10_000 : Number(values.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_CALL_TIMEOUT_MS_CEILING) {
        throw new UsageError(`--timeout expects a positive number of milliseconds, at most ${MAX_CALL_TIMEOUT_MS_CEILING}, got '${values.timeout}'.`);
      }
      const transport = await openTransport(resolved.spec);
      const { claims, source } = await readClaimSet({ transport, requestTimeoutMs: timeoutMs, shutdownTimeoutMs: timeoutMs });
      if (io.verbose) io.err(`claims read through ${source}`);
      await io.json(claims);
      return ExitCode.Ok;
    });
  },
};
