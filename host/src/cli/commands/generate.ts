/** `mep generate`: Morphir IR → artifacts through a backend extension, written all-or-nothing. */
import { resolve } from 'node:path';
import { openStagedOutput } from '../../artifacts/staged-output.ts';
import type { WriteReport } from '../../artifacts/staged-output.ts';
import { createArtifactValidator } from '../../artifacts/validate.ts';
import type { ArtifactValidator } from '../../artifacts/validate.ts';
import type { Artifact, GenerateResult } from '../../protocol/index.ts';
import { LIMIT_CEILINGS } from '../../protocol/limits.ts';
import { publishInterruptibly } from '../publish-output.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { GENERATE_FLAGS, REQUIRED_FLAGS } from './operation-flags.ts';
import { OPERATION_HELP, hasErrors, printDiagnostics, readIrInput, requireFlags, runOperation, scrubDiagnostics, withJsonErrors } from './operation.ts';
import type { OperationOutcome } from './operation.ts';
import { parseOptionFlags } from './options.ts';

/** The target of a backend that claims exactly one; else ERR_USAGE saying to pass --target. */
function onlyTarget(extension: string, targets: readonly string[] | undefined): string {
  const [only, ...more] = targets ?? [];
  if (only !== undefined && more.length === 0) return only;
  throw new UsageError(`${extension} ${only === undefined ? 'claims no backend target' : `claims the targets ${(targets ?? []).join(', ')}`}: pass --target <target>.`);
}

export const generateCommand: Command = {
  summary: 'generate artifacts from Morphir IR with a backend extension',
  help: `Usage: mep generate [--target T] --input IR.json --output DIR [--extension EXT] [--option k=v]… [--json] [--verbose]

Sends the IR to the backend with morphir.backend.generate, validates every returned artifact
(safe relative paths that name distinct files on every file system, valid content) and only then
writes them all to DIR: the artifacts are added to what DIR holds, replacing files of the same
paths, and DIR is replaced as a whole (the new tree is built beside it and renamed into place),
so a failure or an interrupt leaves DIR as it was or completely written. DIR is checked before the
extension runs: it must be a directory or missing, writable, and not hold the current directory.
Without --extension the backend is the installed extension whose claims list target T for the
input's IR version (project .mep/extensions first, then $MEP_HOME/extensions).

  --target T        target id, e.g. avro (must be claimed by the extension); without it, the only
                    target of the extension given, or of the only backend installed
  --input FILE      Morphir IR JSON (morphir-ir.json)
  --output DIR      where artifacts are written
${OPERATION_HELP}`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, GENERATE_FLAGS, 'generate');
    return withJsonErrors(io, values.json, async () => {
      requireFlags('generate', positionals, values, REQUIRED_FLAGS.generate);
      io.verbose = Boolean(values.verbose);
      const options = parseOptionFlags(values.option ?? [], io.cwd);
      let target = values.target;
      // Before the extension runs: an unusable output is refused, an interrupted earlier write
      // there is finished or undone, and the output is held for this run.
      const output = await openStagedOutput(resolve(io.cwd, values.output as string), { cwd: io.cwd });
      let run: { irVersion: string; outcome: OperationOutcome<GenerateResult>; report?: WriteReport };
      try {
        const { ir, irVersion } = await readIrInput(io, values.input as string, values);
        // Artifacts the backend streams are validated and staged as they arrive; the ones in its
        // result follow. MEP 0.1: nothing is published before every one passed, and none unless
        // the result says success (the stager swaps all of them in, or none).
        // How many files is the session's to bound (`--max-output-files`, counted before staging).
        let validator: ArtifactValidator | undefined;
        const check = (extension: string, artifact: Artifact) => (validator ??= createArtifactValidator(extension, { maxArtifacts: LIMIT_CEILINGS.maxOutputFiles })).check(artifact);
        const outcome = await runOperation(io, values, { kind: 'backend', ...(target === undefined ? {} : { target }), irVersion }, (session, signal) =>
          session.generate({ ir, target: (target ??= onlyTarget(session.extension, session.initializeResult?.capabilities.backend?.targets)), options }, { signal, onArtifact: (artifact) => output.add(check(session.extension, artifact)).then(() => undefined) }),
        );
        const { result, extension } = outcome;
        const report = result.success ? await publishInterruptibly(io, output, { extension, files: result.artifacts.map((artifact) => check(extension, artifact)) }) : undefined;
        run = { irVersion, outcome, ...(report ? { report } : {}) };
      } finally {
        // After a publication this only reports it; in every other case nothing was written.
        await output.abort();
      }
      const { irVersion, report } = run;
      const { result, extension, redactor } = run.outcome;
      const diagnostics = scrubDiagnostics(result.diagnostics, redactor);

      if (values.json) {
        await io.json({ success: result.success, extension, target, irVersion, outDir: report?.outDir ?? null, written: report?.written ?? [], diagnostics });
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
