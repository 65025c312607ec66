/**
 * The kill test of publication (test support): child processes publish a planned result over
 * an old output and are killed (SIGINT, SIGTERM, SIGKILL) at seeded moments, while they write
 * files or at each step of the swap. After each, the next writer's recovery runs, and the output
 * must be exactly the old tree or exactly the new one, with nothing left beside it. Run short by
 * `npm test` (publish-kill.test.ts) and long by `npm run publish-kill`.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PublishStep } from '../staged-output.ts';
import { recoverOutput } from '../write.ts';
import { createSeededRandom } from '../../../../fixtures/testing/random.ts';
import { digestOf, newTree, oldTree, readTree, writeTree } from './publish-plan.ts';

/** One kill: which signal, when, and whether the child handles it as `mep generate` does. */
export interface KillCase {
  signal: 'SIGINT' | 'SIGTERM' | 'SIGKILL';
  at: { file: number } | { step: PublishStep };
  handled: boolean;
}

/** Options of {@link runPublishKills}. */
export interface KillRunOptions {
  /** Artifacts each run publishes. */
  files: number;
  /** How many kills. */
  cases: number;
  seed: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

const STEPS: readonly PublishStep[] = ['staged', 'carried', 'swapping', 'moved-aside', 'published', 'cleaned'];
// Killed unhandled at these steps, the output is (after recovery) the new tree; before them, the old one.
const NEW_FROM = new Set<PublishStep>(['moved-aside', 'published', 'cleaned']);
const child = fileURLToPath(new URL('./publish-child.ts', import.meta.url));
// The child loads tsx from the repository, wherever the caller runs.
const repository = fileURLToPath(new URL('../../../../', import.meta.url));

/** The cases: first SIGKILL at every step and each signal mid-write, then seeded picks of all kinds. */
export function planKillCases(files: number, count: number, seed: number): KillCase[] {
  const random = createSeededRandom(seed);
  const cases: KillCase[] = [
    ...STEPS.map((step): KillCase => ({ signal: 'SIGKILL', at: { step }, handled: false })),
    ...(['SIGINT', 'SIGTERM', 'SIGKILL'] as const).map((signal): KillCase => ({ signal, at: { file: 1 + random.int(files - 1) }, handled: false })),
    { signal: 'SIGINT', at: { step: random.pick(STEPS) }, handled: true },
    { signal: 'SIGTERM', at: { file: 1 + random.int(files - 1) }, handled: true },
  ];
  while (cases.length < count) {
    const signal = random.pick(['SIGINT', 'SIGTERM', 'SIGKILL'] as const);
    cases.push({ signal, at: random.chance(0.5) ? { file: 1 + random.int(files - 1) } : { step: random.pick(STEPS) }, handled: signal !== 'SIGKILL' && random.chance(0.4) });
  }
  return cases.slice(0, count);
}

const describe = (c: KillCase): string => `${c.signal}${c.handled ? ' (handled)' : ''} at ${'file' in c.at ? `file ${c.at.file}` : `step ${c.at.step}`}`;

async function runChild(args: object): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const process_ = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', child, JSON.stringify(args)], { cwd: repository, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  process_.stdout.on('data', (c) => (stdout += c));
  process_.stderr.on('data', (c) => (stderr += c));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => process_.on('close', (c, s) => resolve([c, s])));
  return { code, signal, stdout, stderr };
}

/** Judges one finished child: what the output must be, and any problem. */
async function judge(c: KillCase, run: Awaited<ReturnType<typeof runChild>>, out: string): Promise<{ expected?: 'old' | 'new'; problem?: string }> {
  if (c.handled) {
    if (!((run.code === 130 && run.stdout === 'aborted') || (run.code === 0 && run.stdout === 'published'))) return { problem: `the child ended ${run.signal ?? run.code} printing ${JSON.stringify(run.stdout)}: ${run.stderr.slice(0, 400)}` };
    const recovered = await recoverOutput(out);
    if (recovered !== 'none') return { problem: `a handled signal left something to recover (${recovered})` };
    return { expected: run.code === 0 ? 'new' : 'old' };
  }
  if (run.signal !== c.signal) return { problem: `the child was not ended by ${c.signal} but ${run.signal ?? `exit ${run.code}`}: ${run.stderr.slice(0, 400)}` };
  await recoverOutput(out);
  return { expected: 'step' in c.at && NEW_FROM.has(c.at.step) ? 'new' : 'old' };
}

/**
 * Runs the kills and returns one line per failure (empty when every output was exactly the old
 * or the new tree, the one the moment of the kill implies, with nothing beside it).
 */
export async function runPublishKills(options: KillRunOptions): Promise<{ failures: string[]; old: number; new: number }> {
  const root = await mkdtemp(join(tmpdir(), 'mep-publish-kill-'));
  const failures: string[] = [];
  const tally = { old: 0, new: 0 };
  try {
    const template = join(root, 'template');
    await writeTree(template, oldTree(options.files));
    const digests = { old: digestOf(oldTree(options.files)), new: digestOf(newTree(options.files)) };
    const cases = planKillCases(options.files, options.cases, options.seed);
    for (const [i, c] of cases.entries()) {
      const dir = join(root, `case-${i}`);
      const out = join(dir, 'out');
      await mkdir(dir);
      await writeTree(out, oldTree(options.files), template);
      const run = await runChild({ out, files: options.files, signal: c.signal, at: c.at, handled: c.handled });
      const { expected, problem } = await judge(c, run, out);
      const tree = await readTree(out);
      const digest = tree === undefined ? 'missing' : digestOf(tree);
      const left = (await readdir(dir)).filter((name) => name !== 'out');
      const got = digest === digests.old ? 'old' : digest === digests.new ? 'new' : tree === undefined ? 'no output' : `a mix (${tree.size} entries)`;
      if (problem) failures.push(`seed ${options.seed} case ${i}, ${describe(c)}: ${problem}`);
      else if (got !== expected) failures.push(`seed ${options.seed} case ${i}, ${describe(c)}: the output is ${got}, expected the ${expected} tree`);
      else if (left.length > 0) failures.push(`seed ${options.seed} case ${i}, ${describe(c)}: left beside the output: ${left.join(', ')}`);
      else tally[expected as 'old' | 'new']++;
      options.log?.(`case ${i + 1}/${cases.length}: ${describe(c)} -> ${got}`);
      await rm(dir, { recursive: true, force: true });
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return { failures, ...tally };
}
