/** `mep validate`: check Morphir IR with a validator extension and report its diagnostics. */
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { detectIrVersion } from '../../session/ir-version.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { OPERATION_FLAGS, OPERATION_HELP, hasErrors, printDiagnostics, readJsonInput, runOperation, scrubDiagnostics, withJsonErrors } from './operation.ts';
import { parseOptionFlags } from './options.ts';

export const validateCommand: Command = {
  summary: 'check Morphir IR with a validator extension',
  help: `Usage: mep validate --input IR.json [--extension EXT] [--option k=v]… [--json] [--verbose]

Sends the IR to a validator with morphir.validator.validate and prints its diagnostics like a
compiler. Without --extension the validator is the installed extension that claims validation
for the input's IR version. Exit 1 when it reports errors.

  --input FILE      Morphir IR JSON (morphir-ir.json)
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { input: { type: 'string' }, ...OPERATION_FLAGS }, 'validate');
    return withJsonErrors(io, values.json, async () => {
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}. Run 'mep validate --help'.`);
      if (!values.input) throw new UsageError(`--input is required. Run 'mep validate --help'.`);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? []);
      const input = await readJsonInput(io, values.input);
      const ir = input.value;
      if (typeof ir !== 'object' || ir === null || Array.isArray(ir)) {
        throw new MepError(LocalErrorCode.Usage, `The input ${input.path} is not a JSON object; pass a Morphir IR distribution (morphir-ir.json).`);
      }
      const irVersion = detectIrVersion(ir, `the input ${input.path}`);
      const { result, extension, redactor } = await runOperation(io, values, { kind: 'validator', irVersion }, (session, signal) =>
        session.validate({ ir: ir as Record<string, unknown>, irVersion, options }, { signal }),
      );
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);
      if (values.json) {
        io.out(JSON.stringify({ success: result.success, extension, irVersion, input: input.path, diagnostics }, null, 2));
      } else {
        printDiagnostics(io, diagnostics);
        io.out(hasErrors(result) ? `Validation of ${input.path} failed (${extension}).` : `Validated ${input.path} with ${extension}: no errors.`);
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};
