/** `mep generate`: Morphir IR → artifacts through a backend extension, written all-or-nothing. */
import { resolve } from 'node:path';
import { createArtifactValidator, validateArtifacts, type ArtifactValidator } from '../../artifacts/validate.ts';
import { openStagedOutput, writeArtifacts, type StagedOutput, type WriteReport } from '../../artifacts/write.ts';
import type { Artifact } from '../../protocol/index.ts';
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

      // Artifacts the backend streams are validated and staged as they arrive; the ones in its
      // result follow. MEP 0.1: nothing is published before every one passed, and none unless
      // the result says success (the stager moves all of them into place, or none).
      const outDir = resolve(io.cwd, values.output as string);
      let staged: { output: Promise<StagedOutput>; validator: ArtifactValidator } | undefined;
      const stage = (extension: string, artifact: Artifact): Promise<void> => {
        staged ??= { output: openStagedOutput(outDir, extension), validator: createArtifactValidator(extension) };
        const file = staged.validator.add(artifact);
        return staged.output.then((output) => output.add(file));
      };
      let report: WriteReport | undefined;
      const { result, extension, redactor } = await runOperation(io, values, { kind: 'backend', target, irVersion }, (session, signal) =>
        session.generate({ ir, target, options }, { signal, onArtifact: (artifact) => stage(session.extension, artifact) }),
      ).catch(async (error: unknown) => {
        await (await staged?.output.catch(() => undefined))?.abort();
        throw error;
      });
      try {
        if (result.success) {
          await Promise.all(result.artifacts.map((artifact) => stage(extension, artifact)));
          report = staged ? await (await staged.output).publish() : await writeArtifacts(outDir, validateArtifacts(extension, []));
        }
      } finally {
        await (await staged?.output.catch(() => undefined))?.abort();
      }
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
