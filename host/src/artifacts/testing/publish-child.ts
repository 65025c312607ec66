/**
 * The child process of the kill tests (test support): publishes the planned artifacts to an
 * output and sends itself a signal at the moment it is told, as if a user or a supervisor sent
 * it then. Argument: JSON {out, files, signal, at: {file: k} | {step: s}, handled}. With
 * `handled`, SIGINT and SIGTERM abort the publication as `mep generate` does, and the child
 * prints the outcome and exits 130 (aborted) or 0 (published); otherwise the signal's default
 * action ends it where it stands.
 */
import { forEachLimited } from '../for-each-limited.ts';
import { openStagedOutput } from '../staged-output.ts';
import type { PublishStep } from '../staged-output.ts';
import { validateArtifacts } from '../validate.ts';
import { plannedArtifacts } from './publish-plan.ts';
import { parseJson } from '../../protocol/json-parse.ts';

interface ChildArgs {
  out: string;
  files: number;
  signal: NodeJS.Signals;
  at: { file: number } | { step: PublishStep };
  handled: boolean;
}

const args = parseJson(process.argv[2] as string, 'data') as ChildArgs;
const kill = (): void => void process.kill(process.pid, args.signal);
let aborting = false;
const output = await openStagedOutput(args.out, { extension: 'kill-test', onStep: (step) => 'step' in args.at && args.at.step === step && kill() });
if (args.handled) {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      aborting = true;
      void output.abort().then((outcome) => {
        process.stdout.write(outcome);
        process.exit(outcome === 'published' ? 0 : 130);
      });
    });
  }
}
try {
  const files = validateArtifacts('kill-test', plannedArtifacts(args.files)).files;
  let written = 0;
  await forEachLimited(files, 8, async (file) => {
    await output.add(file);
    if ('file' in args.at && ++written === args.at.file) kill();
  });
  await output.publish();
  if (!aborting) process.stdout.write('published');
} catch (error) {
  // An abort from the handler ends the process itself, with its outcome.
  if (!aborting) {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  }
}
