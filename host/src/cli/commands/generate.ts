/** `mep generate`: Morphir IR → artifacts through a backend extension, written all-or-nothing. */
import { resolve } from 'node:path';
import { validateArtifacts } from '../../artifacts/validate.ts';
import { writeArtifacts } from '../../artifacts/write.ts';
import { ExitCode } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { OPERATION_FLAGS, OPERATION_HELP, hasErrors, printDiagnostics, readIrInput, requireFlags, runOperation, scrubDiagnostics, withJsonErrors } from './operation.ts';
import { parseOptionFlags } from './options.ts';

export const generateCommand: Command = {
  summary: 'generate artifacts from Morphir IR with a backend extension',
  help: `Usage: mep generate --target T --input IR.json --output DIR [--extension EXT] [--option k=v]… [--json] [--verbose]

Sends the IR to the backend with morphir.backend.generate, validates every returned artifact
(safe relative paths, valid content) and only then writes them all to DIR; on any failure nothing
is written. Without --extension the backend is the installed extension whose claims list target
T for the input's IR version (project .mep/extensions first, then $MEP_HOME/extensions).

  --target T        target id, e.g. avro (must be claimed by the extension)
  --input FILE      Morphir IR JSON (morphir-ir.json)
  --output DIR      where artifacts are written
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { target: { type: 'string' }, input: { type: 'string' }, output: { type: 'string' }, ...OPERATION_FLAGS }, 'generate');
    return withJsonErrors(io, values.json, async () => {
      requireFlags('generate', positionals, values, ['target', 'input', 'output']);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? []);
      const { ir, irVersion } = await readIrInput(io, values.input as string, values);
      const target = values.target as string;

      const { result, extension, redactor } = await runOperation(io, values, { kind: 'backend', target, irVersion }, (session, signal) =>
        session.generate({ ir, target, options }, { signal }),
      );
      // MEP 0.1: validate every artifact before writing any of them.
      const report = result.success ? await writeArtifacts(resolve(io.cwd, values.output as string), validateArtifacts(extension, result.artifacts)) : undefined;
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);

      if (values.json) {
        io.out(JSON.stringify({ success: result.success, extension, target, irVersion, outDir: report?.outDir ?? null, written: report?.written ?? [], diagnostics }, null, 2));
      } else {
        printDiagnostics(io, diagnostics);
        if (report) {
          io.out(`Generated ${report.written.length} artifact${report.written.length === 1 ? '' : 's'} (${report.bytes} bytes) in ${report.outDir} with ${extension}:`);
          for (const path of report.written) io.out(`  ${path}`);
        } else {
          io.out(`Generation failed; nothing was written.`);
        }
      }
      return hasErrors(result) ? ExitCode.Diagnostics : ExitCode.Ok;
    });
  },
};
