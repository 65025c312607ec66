/** `mep conformance <extension>`: run the MEP 0.1 conformance suite against a live extension. */
import { formatResultLine, formatSummary, runConformance } from '../../conformance/index.ts';
import { openTransport } from '../../registry/launch.ts';
import { ExitCode } from '../exit-codes.ts';
import { resolveExtensionArgument } from './extension-argument.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { requestTimeoutOf } from '../../registry/launch-limits.ts';
import { GRANT_FLAGS, GRANT_HELP, parseGrantFlags } from './grant-flags.ts';
import { LIMIT_FLAGS, LIMIT_HELP, parseLimitFlags } from './limit-flags.ts';
import { withJsonErrors } from './operation.ts';
import { parseOptionFlags } from './options.ts';

export const conformanceCommand: Command = {
  summary: 'run the MEP 0.1 conformance suite against an extension',
  help: `Usage: mep conformance <extension> [--filter TEXT] [--option k=v]… [--json] [--max-memory SIZE] [--call-timeout TIME] [--max-message SIZE]

Runs every conformance case against a fresh instance of the extension and prints one line per
case, then 'N passed, N failed'. <extension> is the id of an installed extension, or the path of a .wasm
module, a .js/.mjs file (run with node) or an executable (./x.wasm: a bare name is an id), or the
URL of one served over HTTP (the cases that need a session the client holds are skipped there).
Exit 0 only when no case fails (a skipped case says why).

  --filter TEXT   run only the cases whose name contains TEXT
  --option k=v    an entry of the options bag every generate, compile, validate and transform case
                  sends (repeatable; a value is JSON when it parses, @file reads a file)
  --json          print the results as JSON (and a failure to run the suite as {"success": false, "error": …})
${LIMIT_HELP}
${GRANT_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { filter: { type: 'string' }, option: { type: 'string', multiple: true }, json: { type: 'boolean' }, ...LIMIT_FLAGS, ...GRANT_FLAGS }, 'conformance');
    return withJsonErrors(io, values.json, async () => {
      const limits = parseLimitFlags(values);
      const { spec } = await resolveExtensionArgument(onePositional(positionals, 'extension', 'conformance'), io, { limits, grants: parseGrantFlags(values) });
      const results = await runConformance({
        open: () => openTransport(spec),
        ...(limits.callTimeoutMs === undefined ? {} : { requestTimeoutMs: requestTimeoutOf(spec), caseTimeoutMs: requestTimeoutOf(spec) * 4 }),
        filter: values.filter,
        options: parseOptionFlags(values.option ?? [], io.cwd),
        onResult: values.json ? undefined : (r) => io.out(formatResultLine(r)),
      });
      if (values.json) await io.json({ extension: spec.path, results });
      else io.out(formatSummary(results));
      return results.some((r) => r.status === 'failed') ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};
