/**
 * Fetching a package from git: clone, check out `#ref` (branch, tag or commit), record the
 * commit. Runs the `git` on PATH with prompts disabled; nothing from the repository is executed,
 * and no filter of the user's git configuration is run on its files.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { startFetchDeadline } from './archive/budget.ts';
import type { ArchiveLimits } from './archive/budget.ts';
import { checkTreeBudget, GIT_NOT_FOUND, gitMemoryError, gitRedirectError, spawnGit, watchCloneSize } from './git-budget.ts';

/** The most of git's stdout kept (a rev-parse prints a line; a failure's stderr is cut to its tail). */
const MAX_OUTPUT = 16 * 1024 * 1024;

/** The git command `args` run (`git -C <dir> checkout …` is `checkout`, not `-C`). */
function commandOf(args: string[]): string | undefined {
  return args[0] === '-C' ? args[2] : args[0];
}

/** Runs git (spawnGit: its own group, ended with `signal` or `mep`) and resolves with its stdout. */
function run(args: string[], limits: Readonly<ArchiveLimits>, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const { child, stderrTail } = spawnGit(args, limits, signal);
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += text;
    });
    child.once('error', (error) => reject(error));
    child.once('close', (code, killed) => {
      if (code === 0) resolve(stdout);
      else reject(Object.assign(new Error(`git ${commandOf(args)} ended with ${killed ?? `exit code ${code}`}`), { stderr: stderrTail() }));
    });
  });
}

async function git(args: string[], spec: string, limits: Readonly<ArchiveLimits>, signal?: AbortSignal): Promise<string> {
  try {
    return (await run(args, limits, signal)).trim();
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT' || GIT_NOT_FOUND.test(failure.stderr ?? '')) {
      throw new MepError(LocalErrorCode.Registry, `Installing ${spec} needs git, which is not on PATH. Install git, or install from an archive or a local directory.`, {
        data: { source: spec, reason: 'git-missing' },
      });
    }
    const refusal = gitMemoryError(spec, failure.stderr ?? '', limits) ?? gitRedirectError(spec, failure.stderr ?? '');
    if (refusal) throw refusal;
    const detail = (failure.stderr || failure.message).trim().split('\n').slice(-3).join(' ');
    const command = commandOf(args);
    throw new MepError(LocalErrorCode.Registry, `git ${command} failed for ${spec}: ${detail}. Check the URL and the #ref.`, {
      cause: error,
      data: { source: spec, reason: 'git', command },
    });
  }
}

/**
 * Clones `url` into `dir` (which must not exist), checks out `ref` when given and returns the
 * commit now checked out. The commit's whole tree is held to `limits` (entries and bytes, as an
 * archive's members) before a file of it is written.
 *
 * @example
 * const commit = await cloneAt('file:///srv/crm.git', 'v1.2.0', tmp, spec, archiveLimitsOf());
 */
export async function cloneAt(url: string, ref: string | undefined, dir: string, spec: string, limits: Readonly<ArchiveLimits>): Promise<string> {
  if (ref !== undefined && ref.startsWith('-')) {
    throw new MepError(LocalErrorCode.Usage, `The ref #${ref} in ${spec} starts with '-'; name a branch, tag or commit.`, { data: { source: spec } });
  }
  // Clone, listing and checkout together within the fetch deadline: a server that stalls or
  // trickles is stopped then (ERR_TIMEOUT), whatever step git is at.
  const deadline = startFetchDeadline(limits, spec);
  try {
    return await cloneAndCheckOut(url, ref, dir, spec, limits, deadline.signal);
  } catch (error) {
    throw deadline.passed() ?? error;
  } finally {
    deadline.stop();
  }
}

async function cloneAndCheckOut(url: string, ref: string | undefined, dir: string, spec: string, limits: Readonly<ArchiveLimits>, signal: AbortSignal): Promise<string> {
  await cloneWithin(url, dir, spec, limits, signal);
  let commit = await resolveRef(dir, ref ?? 'HEAD', spec, limits, signal);
  // Branches other than the default exist only as remote-tracking refs after a clone.
  if (commit === undefined && ref !== undefined) commit = await resolveRef(dir, `origin/${ref}`, spec, limits, signal);
  if (commit === undefined) {
    throw new MepError(LocalErrorCode.Registry, `The ref #${ref} does not exist in ${url}. Name an existing branch, tag or commit.`, {
      data: { source: spec, ref, reason: 'git-ref' },
    });
  }
  await checkTreeBudget(dir, commit, spec, limits, signal);
  // The files are the blobs the budget counted, byte for byte: no filter of the user's
  // configuration (git-lfs's smudge fetches what a pointer names, from where the repository's
  // .lfsconfig says), no end-of-line, ident or encoding conversion, whatever .gitattributes asks.
  // $GIT_DIR/info/attributes comes before every .gitattributes of the tree.
  await mkdir(join(dir, '.git', 'info'), { recursive: true });
  await writeFile(join(dir, '.git', 'info', 'attributes'), '* -filter -text -ident -working-tree-encoding\n');
  await git(['-C', dir, 'checkout', '--quiet', '--detach', commit], spec, limits, signal);
  return commit;
}

/**
 * `git clone --no-checkout` held to `limits.maxBytes`: what it has taken on disk is looked at
 * while it runs and once it is done, and git is stopped past the budget (ERR_LIMIT). Always
 * through git's transport (`--no-local`): a plain path is not copied or linked object by object.
 */
async function cloneWithin(url: string, dir: string, spec: string, limits: Readonly<ArchiveLimits>, deadline: AbortSignal): Promise<void> {
  const watch = watchCloneSize(dir, spec, limits);
  try {
    await git(['clone', '--quiet', '--no-checkout', '--no-local', '--', url, dir], spec, limits, AbortSignal.any([watch.signal, deadline]));
  } catch (error) {
    throw watch.exceeded() ?? error;
  } finally {
    watch.stop();
  }
  await watch.final();
}

async function resolveRef(dir: string, ref: string, spec: string, limits: Readonly<ArchiveLimits>, signal: AbortSignal): Promise<string | undefined> {
  try {
    return await git(['-C', dir, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`], spec, limits, signal);
  } catch (error) {
    if ((error as MepError).code === LocalErrorCode.Limit || ((error as MepError).data as { reason?: string } | undefined)?.reason === 'git-missing') throw error;
    return undefined;
  }
}
