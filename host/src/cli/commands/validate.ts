/** `mep validate`: check Morphir IR with a validator extension and report its diagnostics. */
import { ExitCode } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { VALIDATE_FLAGS, REQUIRED_FLAGS } from './operation-flags.ts';
import { OPERATION_HELP, hasErrors, printDiagnostics, readIrInput, requireFlags, runOperation, scrubDiagnostics, withJsonErrors } from './operation.ts';
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
    const { values, positionals } = parseFlags(argv, VALIDATE_FLAGS, 'validate');
    return withJsonErrors(io, values.json, async () => {
      requireFlags('validate', positionals, values, REQUIRED_FLAGS.validate);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? [], io.cwd);
      const { path: inputPath, ir, irVersion } = await readIrInput(io, values.input as string, values);
      const { result, extension, redactor } = await runOperation(io, values, { kind: 'validator', irVersion }, (session, signal) =>
        session.validate({ ir, irVersion, options }, { signal }),
      );
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);
      if (values.json) {
        await io.json({ success: result.success, extension, irVersion, input: inputPath, diagnostics });
      } else {
        printDiagnostics(io, diagnostics);
        io.out(hasErrors(result) ? `Validation of ${inputPath} failed (${extension}).` : `Validated ${inputPath} with ${extension}: no errors.`);
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};
