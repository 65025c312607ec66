/**
 * Writing a validated result into an output directory in one call (Node edge): the simple entry
 * point over {@link openStagedOutput}, which publishes all-or-nothing and safe against any
 * interruption, and {@link recoverOutput}, which settles an interrupted publication on demand.
 */
import { forEachLimited } from './for-each-limited.ts';
import { forgetCreatedParents, locateOutput } from './output-location.ts';
import type { LocateOptions } from './output-location.ts';
import { recoverPublication } from './publish-journal.ts';
import type { RecoveryOutcome } from './publish-journal.ts';
import { openStagedOutput } from './staged-output.ts';
import type { StagedOutput, StagedOutputOptions, WriteReport } from './staged-output.ts';
import type { ValidatedArtifacts } from './validate.ts';

export type { WriteReport } from './staged-output.ts';

/** Files staged at the same time. */
const PARALLEL_FILES = 8;

/**
 * Writes the artifacts validated by `validateArtifacts` to `outDir`: afterwards the output is
 * the old one with every artifact added or replaced and everything else kept, or, on any
 * failure or interruption, exactly as it was. See {@link openStagedOutput} for the mechanism and
 * the errors.
 *
 * @example
 * const report = await writeArtifacts('out/avro', validateArtifacts(extension, result.artifacts));
 */
export async function writeArtifacts(outDir: string, artifacts: ValidatedArtifacts, options: Omit<StagedOutputOptions, 'extension'> = {}): Promise<WriteReport> {
  return publishArtifacts(await openStagedOutput(outDir, { ...options, extension: artifacts.extension }), artifacts);
}

/**
 * Adds every validated file to the open `output` (a few at a time) and publishes it; on any
 * failure the output is aborted (left as it was) and the error rethrown. For a caller that
 * opened the output early, before the extension ran.
 *
 * @example
 * const output = await openStagedOutput('out/avro');   // refuses an unusable output up front
 * const result = await session.generate(request);
 * const report = await publishArtifacts(output, validateArtifacts(session.extension, result.artifacts));
 */
export async function publishArtifacts(output: StagedOutput, artifacts: ValidatedArtifacts): Promise<WriteReport> {
  try {
    await forEachLimited(artifacts.files, PARALLEL_FILES, async (file) => void (await output.add(file)));
    return await output.publish();
  } catch (error) {
    await output.abort();
    throw error;
  }
}

/**
 * Finishes or undoes an interrupted publication to `outDir` (a run killed while it wrote
 * there), so the output is its old tree or its new one with nothing left beside it. Every
 * writer does this first by itself; this is for a caller that only wants the output settled.
 * Resolves what it did: `none` (nothing was interrupted), `undone` (the new tree was discarded),
 * `finished` (the new tree was moved in) or `cleaned` (the new tree was in place; leftovers
 * removed). Throws ERR_USAGE while another mep publishes there.
 *
 * @example
 * if ((await recoverOutput('out/avro')) === 'finished') console.log('the interrupted run was completed');
 */
export async function recoverOutput(outDir: string, options: LocateOptions = {}): Promise<RecoveryOutcome> {
  const location = await locateOutput(outDir, { ...options, createParents: false });
  if (location === undefined) return 'none';
  try {
    return await recoverPublication(location);
  } finally {
    await forgetCreatedParents(location);
  }
}
