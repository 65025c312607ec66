/** `mep transform`: Morphir IR → Morphir IR through a transform extension, written atomically. */
import { ExitCode } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { TRANSFORM_FLAGS, REQUIRED_FLAGS } from './operation-flags.ts';
import { OPERATION_HELP, hasErrors, printDiagnostics, readIrInput, requireFlags, runOperation, scrubDiagnostics, withJsonErrors, writeJsonOutput } from './operation.ts';
import { parseOptionFlags } from './options.ts';

export const transformCommand: Command = {
  summary: 'transform Morphir IR with a transform extension',
  help: `Usage: mep transform --input IR.json --output OUT.json [--extension EXT] [--option k=v]… [--json] [--verbose]

Sends the IR to a transform with morphir.transform.transform and writes the returned IR to
OUT.json (replaced atomically; untouched when the transform fails). Without --extension the
transform is the installed extension that claims transforms for the input's IR version.

  --input FILE      Morphir IR JSON (morphir-ir.json)
  --output FILE     where the transformed IR is written
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, TRANSFORM_FLAGS, 'transform');
    return withJsonErrors(io, values.json, async () => {
      requireFlags('transform', positionals, values, REQUIRED_FLAGS.transform);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? [], io.cwd);
      const { path: inputPath, ir, irVersion } = await readIrInput(io, values.input as string, values);
      const { result, extension, redactor } = await runOperation(io, values, { kind: 'transform', irVersion }, (session, signal) =>
        session.transform({ ir, irVersion, options }, { signal }),
      );
      const output = result.success && result.ir ? await writeJsonOutput(io, values.output as string, result.ir) : null;
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);
      if (values.json) {
        await io.json({ success: result.success, extension, irVersion: result.irVersion ?? null, output, diagnostics });
      } else {
        printDiagnostics(io, diagnostics);
        io.out(output ? `Transformed ${inputPath} with ${extension}; wrote IR ${result.irVersion} to ${output}.` : `Transform failed; ${values.output} was not written.`);
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};
