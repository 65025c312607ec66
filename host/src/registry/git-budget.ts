/**
 * A git source held to the install's budgets: what its clone takes on disk (the history, as
 * git received it), and its commit's tree before it is checked out. A commit's tree
 * is a graph: one subtree or one blob may be named any number of times, so a repository of a
 * few kilobytes can check out to millions of files or gigabytes (a "git bomb": 13 objects, 10^9
 * files). The tree is listed with `git ls-tree` (names and object sizes, nothing written),
 * streamed and counted as an archive's members are (`--max-entries`, `--max-unpacked`), and the
 * listing is stopped at the first budget passed. Node edge.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { containHelper, PROCESS_GROUPS, signalGroup } from '../transport/process-group.ts';
import { budgetError, createArchiveBudget } from './archive/budget.ts';
import type { ArchiveLimits } from './archive/budget.ts';
import { MAX_MEMBER_PATH, MAX_SEGMENT_BYTES } from './archive/plan.ts';
import { addressSpaceTool } from './launch-limits.ts';

/** How often a running clone's size on disk is looked at: it may pass the budget by what arrives meanwhile. */
const CLONE_POLL_MS = 100;

/** A running clone's size, watched; see {@link watchCloneSize}. */
export interface CloneWatch {
  /** Aborted when the clone passed the budget: stop git with it. */
  readonly signal: AbortSignal;
  /** The budget error, once passed. */
  exceeded(): MepError | undefined;
  /** Stops watching. */
  stop(): void;
  /** Measures the finished clone once more; throws the budget error past it. */
  final(): Promise<void>;
}

/** Bytes of the files under `dir`, recursively (a clone's `.git`: packs, their indexes, refs, logs). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile()) total += (await stat(join(entry.path, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * Watches what the clone into `dir` takes on disk against `limits.maxBytes`, every
 * {@link CLONE_POLL_MS} ms: all of it, the pack git writes as it receives it and the refs it
 * writes at the end (`packed-refs`: every branch and tag the server advertised, names of any
 * length, which came at no cost in objects; 96 MB of them from 52 KB of objects were not counted
 * when only `.git/objects` was, git-refs.test.ts).
 *
 * @example
 * const watch = watchCloneSize(dir, spec, limits);
 * await git(['clone', …], { signal: watch.signal }).catch((e) => { throw watch.exceeded() ?? e; }).finally(watch.stop);
 * await watch.final();
 */
export function watchCloneSize(dir: string, spec: string, limits: Readonly<ArchiveLimits>): CloneWatch {
  const abort = new AbortController();
  let error: MepError | undefined;
  let measuring = false;
  const measure = async (): Promise<void> => {
    if ((await bytesUnder(dir)) > limits.maxBytes) {
      error ??= budgetError(spec, 'bytes', limits.maxBytes, 'downloads more than', 'repository');
      abort.abort(error);
    }
  };
  const timer = setInterval(() => {
    if (measuring || error) return;
    measuring = true;
    void measure().finally(() => (measuring = false));
  }, CLONE_POLL_MS);
  return {
    signal: abort.signal,
    exceeded: () => error,
    stop: () => clearInterval(timer),
    async final() {
      await measure();
      if (error) throw error;
    },
  };
}

/**
 * Variables that tell git which repository, index and work tree it works on (git's own
 * `git rev-parse --local-env-vars`, which git itself drops for a submodule), and config given
 * by the environment: set in a git hook (or by a wrapper) they are the user's repository's,
 * and the package's clone and checkout ran against that repository and its index.
 */
const REPOSITORY_VARIABLES = /^GIT_(ALTERNATE_OBJECT_DIRECTORIES|CONFIG|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|OBJECT_DIRECTORY|DIR|WORK_TREE|IMPLICIT_WORK_TREE|GRAFT_FILE|INDEX_FILE|NO_REPLACE_OBJECTS|REPLACE_REF_BASE|PREFIX|SHALLOW_FILE|COMMON_DIR|NAMESPACE|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM)$/;

/** `env` without {@link REPOSITORY_VARIABLES}. */
export function gitEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !REPOSITORY_VARIABLES.test(name)));
}

/**
 * The transports a git source may use, the ones `mep install` documents. git's remote helpers
 * (`ext::<command>`, `fd::`, and any `git-remote-<name>` on the PATH) run commands or reach
 * elsewhere; the user's configuration may allow them for other work (`protocol.allow always`),
 * and this list is the whole of what git then allows, for the clone and every submodule or
 * redirect it would follow.
 */
const ALLOWED_PROTOCOLS = 'file:git:http:https:ssh';

/** The tail of git's stderr kept for an error (its last lines say why). */
const STDERR_TAIL = 4096;

/**
 * The data segment git may take (its heap and private mappings, `prlimit --data`; not the packs
 * it maps from disk): twice the install's byte budget, at least 256 MiB (1 GiB by default). git
 * holds whatever a server advertises before it writes anything: 100,000 refs of 900 characters,
 * 450 KB over HTTP with gzip, took it to 544 MB (git-refs.test.ts). Where there is no prlimit (not
 * Linux, no util-linux), git runs uncapped.
 */
export function gitDataBytes(limits: Readonly<ArchiveLimits>): number {
  return Math.max(256 * 1024 * 1024, 2 * limits.maxBytes);
}

/** git's report of an allocation refused (`fatal: Out of memory, malloc failed`), as under the cap. */
const OUT_OF_MEMORY = /fatal: Out of memory|fatal: unable to allocate|Cannot allocate memory/;

/** ERR_LIMIT for a git stopped by {@link gitDataBytes}, or undefined when its stderr says otherwise. */
export function gitMemoryError(spec: string, stderr: string, limits: Readonly<ArchiveLimits>): MepError | undefined {
  if (!OUT_OF_MEMORY.test(stderr) || addressSpaceTool() === null) return undefined;
  const bytes = gitDataBytes(limits);
  return new MepError(LocalErrorCode.Limit, `git ran out of the ${Math.round(bytes / 2 ** 20)} MiB of memory it may take for ${spec} (the server sent more than a package needs: refs, history). Nothing was installed; a larger --max-unpacked raises it (twice that).`, {
    data: { source: spec, limit: 'gitDataBytes', limitBytes: bytes, option: '--max-unpacked' },
  });
}

/**
 * What of the user's git configuration must not act on a package's clone: their hooks
 * (`core.hooksPath`, or those `init.templateDir` copies into every new repository) ran at each ref
 * the clone wrote and at the checkout, in the package's tree; their `core.fsmonitor` command was
 * started on it; `submodule.recurse` with `submodule.active` made the checkout fail on a package
 * holding a submodule (git-user-config.test.ts). Given on git's command line, they come last.
 * Nor does git follow an HTTP redirect: the server the user named sent it, with its requests, to
 * any address the Location names, a service of the user's own network included (archive
 * downloads check each hop's address; git cannot), see {@link gitRedirectError}.
 */
const PACKAGE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'submodule.recurse=false', '-c', 'http.followRedirects=false'];

/** `git args`, with {@link PACKAGE_CONFIG}, under `prlimit --data` where there is one (see {@link gitDataBytes}). */
function gitCommand(args: string[], limits: Readonly<ArchiveLimits>): [string, string[]] {
  const prlimit = addressSpaceTool();
  const git = [...PACKAGE_CONFIG, ...args];
  return prlimit === null ? ['git', git] : [prlimit, [`--data=${gitDataBytes(limits)}`, '--', 'git', ...git]];
}

/** git's report of an HTTP redirect it did not follow (`The requested URL returned error: 301`). */
const REDIRECT = /The requested URL returned error: (30[1278])/;

/** ERR_REGISTRY `redirect` for a server that answered git with a redirect, or undefined. */
export function gitRedirectError(spec: string, stderr: string): MepError | undefined {
  const status = REDIRECT.exec(stderr)?.[1];
  if (status === undefined) return undefined;
  return new MepError(LocalErrorCode.Registry, `The server of ${spec} answered git with a redirect (HTTP ${status}), which is not followed: it could send git's requests to any address, a service of your own network included. Nothing was installed; install from the URL it redirects to (curl -sI shows its Location).`, {
    data: { source: spec, reason: 'redirect', status: Number(status) },
  });
}

/** prlimit's report that it found no git to run (git's own spawn reports ENOENT). */
export const GIT_NOT_FOUND = /failed to execute git: No such file/;

/**
 * Runs git with prompts off, its data segment capped ({@link gitDataBytes}), in a group of its own (with what it starts: git-remote-http,
 * index-pack, upload-pack), ended as a whole when `signal` aborts or `mep` is interrupted or
 * exits (containHelper; execFile would not do: it does not pass `detached` on to spawn). Its
 * stdout is the caller's; the last {@link STDERR_TAIL} characters of its stderr are kept.
 */
export function spawnGit(args: string[], limits: Readonly<ArchiveLimits>, signal?: AbortSignal): { child: ChildProcessByStdio<null, Readable, Readable>; stderrTail(): string } {
  const [command, commandArgs] = gitCommand(args, limits);
  const child = spawn(command, commandArgs, {
    env: { ...gitEnvironment(process.env), GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: PROCESS_GROUPS,
  });
  containHelper(child, signal);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL);
  });
  return { child, stderrTail: () => stderr };
}

/** The longest `<mode> <type> <object> <size>` head of a listed entry (a SHA-256 object id is 64 hex digits). */
const MAX_HEAD = 256;
const TAB = 0x09;
const NUL = 0x00;

/** Longest path of a tree entry, and of one name in it, in bytes: what an archive member may have. */
const MAX_TREE_PATH_BYTES = MAX_MEMBER_PATH;
const MAX_TREE_NAME_BYTES = MAX_SEGMENT_BYTES;
const SLASH = 0x2f;

/** A tree path no file system takes (git checks it out relative to each folder; nothing else opens it). */
function unsafePath(spec: string, start: number[], what: string): MepError {
  const shown = Buffer.from(start).toString('utf8');
  return new MepError(LocalErrorCode.Registry, `Refusing the repository ${spec}: the path ${JSON.stringify(`${shown}…`)} has ${what}, which file systems do not take. Nothing was checked out or installed; ask the publisher for shorter paths.`, {
    data: { source: spec, reason: 'unsafe-entry', entry: shown },
  });
}

function listingError(spec: string, detail: string): MepError {
  return new MepError(LocalErrorCode.Registry, `git ls-tree failed for ${spec}: ${detail}. Check the URL and the #ref.`, {
    data: { source: spec, reason: 'git', command: 'ls-tree' },
  });
}

/**
 * Counts every entry of `commit`'s whole tree in the clone `dir` (folders, files, links,
 * submodules) against `limits.maxEntries` and the sizes of its blobs, each time it is named,
 * against `limits.maxBytes`. Throws the budget's MepError(ERR_LIMIT) (`data.budget`, `data.option`)
 * past either, with git stopped; resolves when the whole tree fits.
 *
 * @example
 * await checkTreeBudget(clone, commit, 'file:///srv/x.git#v1', archiveLimitsOf());
 */
export function checkTreeBudget(dir: string, commit: string, spec: string, limits: Readonly<ArchiveLimits>, signal?: AbortSignal): Promise<void> {
  const budget = createArchiveBudget(limits, spec, 'repository');
  const { child: git, stderrTail } = spawnGit(['-C', dir, 'ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit], limits, signal);
  return new Promise<void>((resolve, reject) => {
    let failure: Error | undefined;
    let head: number[] = [];
    let inPath = false;
    let pathBytes = 0;
    let nameBytes = 0;
    /** The path's first bytes, for the refusal. */
    let start: number[] = [];
    const stop = (error: Error): void => {
      failure ??= error;
      git.stdout.destroy();
      if (git.pid !== undefined) signalGroup(git.pid, 'SIGKILL');
    };
    /** One listed entry's head: `100644 blob <id>     1234` (`-` for a folder or a submodule). */
    const count = (text: string): void => {
      const size = /^\d+ (?:blob|tree|commit) [0-9a-f]+ +(-|\d+)$/.exec(text)?.[1];
      if (size === undefined) throw listingError(spec, `unexpected line ${JSON.stringify(text.slice(0, 80))}`);
      budget.entry();
      if (size !== '-') budget.bytes(Number(size));
    };
    git.stdout.on('data', (chunk: Buffer) => {
      if (failure !== undefined) return;
      try {
        for (const byte of chunk) {
          if (inPath) {
            // A name is skipped, never kept whole: a tree may hold names of any length.
            if (byte === NUL) {
              inPath = false;
              continue;
            }
            pathBytes++;
            nameBytes = byte === SLASH ? 0 : nameBytes + 1;
            if (start.length < 120) start.push(byte);
            if (pathBytes > MAX_TREE_PATH_BYTES) throw unsafePath(spec, start, `more than ${MAX_TREE_PATH_BYTES} bytes`);
            if (nameBytes > MAX_TREE_NAME_BYTES) throw unsafePath(spec, start, `a name of more than ${MAX_TREE_NAME_BYTES} bytes`);
          } else if (byte === TAB) {
            count(String.fromCharCode(...head));
            head = [];
            inPath = true;
            pathBytes = nameBytes = 0;
            start = [];
          } else if (head.length >= MAX_HEAD) {
            throw listingError(spec, 'an entry longer than git lists');
          } else {
            head.push(byte);
          }
        }
      } catch (error) {
        stop(error as Error);
      }
    });
    git.on('error', (error) => stop(listingError(spec, error.message)));
    git.on('close', (code) => {
      if (failure !== undefined) reject(failure);
      else if (code !== 0) reject(gitMemoryError(spec, stderrTail(), limits) ?? listingError(spec, stderrTail().trim().split('\n').slice(-3).join(' ') || `exit code ${code}`));
      else resolve();
    });
  });
}
