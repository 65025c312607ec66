/**
 * Containment of a process extension beyond its process group. A group is left by `setsid`: a
 * grandchild that starts a session of its own is out of the group's reach and survives it. A PID
 * namespace is not left that way: when its first process (its init) ends, the kernel kills every
 * process in it. So where the system allows it, an extension runs as
 *
 *     unshare --pid -- /bin/bash --norc --noprofile -c <LAUNCHER> init K=V… <command> <args…>
 *
 * util-linux's `unshare` (Linux) makes the namespace and execs the launcher, which stays outside
 * it; the launcher's first child — the extension, through `env -i` with exactly its environment
 * (the launcher itself gets none, so nothing like BASH_ENV reaches it) — is the namespace's init.
 * When the extension ends, so does everything it started, `setsid` or not. Before starting it the
 * launcher closes every descriptor but 0, 1 and 2 that the host inherited without close-on-exec
 * (Node.js cannot mark them); after, it closes its own stdio, so the extension alone holds the
 * pipes (closing its stdout ends the session at once), and it waits and exits with the
 * extension's status (128 + N for signal N: {@link endOfContained} turns it back into the signal).
 * The launcher and the extension stay in the extension's process group, so ending the group ends
 * them. As an init, the extension ignores a SIGTERM it has no handler for: the group's SIGKILL
 * follows after the term grace. /proc stays the host's (no `--mount-proc`).
 *
 * A root host makes the namespace directly; another asks for a user namespace too
 * (`--user --map-current-user`: the extension keeps its uid). Which works is found once per host
 * process by starting an empty one; where neither does (user namespaces disabled, no util-linux),
 * the launcher runs in the process group only, and {@link containment} says why; where there is no
 * bash (not Linux), the extension is spawned as it is.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { constants as os } from 'node:os';

/** How process extensions are contained on this host. */
export type Containment =
  | { kind: 'pid-namespace'; unshare: string; flags: readonly string[] }
  | { kind: 'process-group'; reason: string; init: boolean };

/** Where util-linux's unshare, bash and env are (Debian: all essential). */
const UNSHARE_PATHS = ['/usr/bin/unshare', '/bin/unshare'];
const SHELL = '/bin/bash';
const ENV = '/usr/bin/env';
/** No startup files: bash reads ~/.bashrc when its stdin is a socket (as Node.js's pipes are), taking it for sshd. */
const SHELL_FLAGS = ['--norc', '--noprofile', '-c'];
/**
 * The launcher: closes descriptors 3 and up (listed in /proc/self/fd: the shell's own), runs
 * `env -i -- K=V… command args` as its child (`--`: a name or a command that begins with a dash
 * is never one of env's options, such as -S, which would run another command), closes its own
 * stdio, and exits with the child's status (128 + N for signal N). The child is a subshell that
 * sets SIGINT and SIGQUIT back to their default before it execs: a non-interactive shell starts
 * its background jobs with both ignored, and an ignored signal stays ignored across exec, so the
 * extension and all it started ran deaf to them (inherited.test.ts); a program spawned by Node.js
 * starts with every signal at its default.
 */
const INIT_SCRIPT = `for f in /proc/self/fd/*; do n=\${f##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-"; done; (trap - INT QUIT; exec ${ENV} -i -- "$@") <&0 & p=$!; exec 0<&- 1>&- 2>&-; wait $p; exit $?`;
/** The flags tried, in order: as root, then with a user namespace of the same uid. */
const FLAG_SETS: readonly (readonly string[])[] = [
  ['--pid'],
  ['--user', '--map-current-user', '--pid'],
  ['--user', '--map-root-user', '--pid'],
];

let detected: Containment | undefined;

/** How this host contains process extensions, found once (a few ms, the first time). */
export function containment(): Containment {
  detected ??= detect();
  return detected;
}

function detect(): Containment {
  if (process.platform !== 'linux') return { kind: 'process-group', reason: `PID namespaces are a Linux feature (this is ${process.platform})`, init: false };
  if (!existsSync(SHELL) || !existsSync(ENV)) return { kind: 'process-group', reason: `${SHELL} or ${ENV} is missing`, init: false };
  const unshare = UNSHARE_PATHS.find((path) => existsSync(path));
  if (unshare === undefined) return { kind: 'process-group', reason: 'util-linux unshare is not installed', init: true };
  let refusal = '';
  for (const flags of FLAG_SETS) {
    const run = spawnSync(unshare, [...flags, '--', SHELL, ...SHELL_FLAGS, INIT_SCRIPT, 'init', '/bin/true'], { env: {}, stdio: ['ignore', 'ignore', 'pipe'], timeout: 5_000 });
    if (run.status === 0) return { kind: 'pid-namespace', unshare, flags };
    refusal ||= run.stderr?.toString('utf8').trim() || String(run.error ?? `exit ${run.status}`);
  }
  return { kind: 'process-group', reason: `the system refused a PID namespace (${refusal})`, init: true };
}

/** A command line to spawn. */
export interface CommandLine {
  command: string;
  args: string[];
}

/** A command line to spawn with its environment; `wrapped` when it goes through the init. */
export interface Launch extends CommandLine {
  env: Record<string, string>;
  wrapped: boolean;
  namespaced: boolean;
}

/**
 * `command args` with environment `env`, run through the init in a PID namespace of its own, or
 * in the process group only (see the file comment). A command that cannot be run is spawned as
 * it is, so it fails the way it would without containment (ENOENT, EACCES), with the same report.
 */
export function containedCommand(line: CommandLine, env: Readonly<Record<string, string>>, contained: Containment): Launch {
  const init = contained.kind === 'pid-namespace' || contained.init;
  // env takes its first argument without '=' as the command: one with '=' cannot go through it.
  if (!init || !runnable(line.command) || line.command.includes('=')) return { ...line, env: { ...env }, wrapped: false, namespaced: false };
  const shell = [SHELL, ...SHELL_FLAGS, INIT_SCRIPT, 'init', ...Object.entries(env).map(([key, value]) => `${key}=${value}`), line.command, ...line.args];
  if (contained.kind === 'process-group') return { command: SHELL, args: shell.slice(1), env: {}, wrapped: true, namespaced: false };
  return { command: contained.unshare, args: [...contained.flags, '--', ...shell], env: {}, wrapped: true, namespaced: true };
}

function runnable(command: string): boolean {
  if (!command.includes('/')) return true;
  try {
    accessSync(command, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The extension's own end, from the end of its contained command line: 128 + N is signal N. */
export function endOfContained(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const name = (Object.keys(os.signals) as NodeJS.Signals[]).find((key) => os.signals[key] === code - 128);
  return name === undefined ? { code, signal } : { code: null, signal: name };
}
