/**
 * Starting the child: the working directory checked, the environment exactly the one given, and
 * the child the leader of a process group of its own (process-group.ts), remembered so that the
 * host's exit ends it. The only file that imports node:child_process for process extensions.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import { PROCESS_GROUPS, trackGroup } from '../process-group.ts';
import { containedCommand, containment, type Containment } from './containment.ts';
import type { ProcessTransportOptions } from './options.ts';

/** The error of a command that could not start: what the system said, and what to do. */
export function spawnError(name: string, command: string, error: NodeJS.ErrnoException): MepError {
  const hint =
    error.code === 'ENOENT'
      ? 'the file does not exist (the child gets no PATH, so give an absolute path)'
      : error.code === 'EACCES'
        ? 'it is not executable (check its permissions, or run a script through its interpreter)'
        : error.code === 'E2BIG'
          ? 'its arguments and environment are too long for the system (E2BIG: at most 128 KiB in one value, about 2 MiB in all); pass large data in a file or a message instead'
        : `the system refused (${error.code ?? error.message})`;
  return new MepError(LocalErrorCode.Usage, `Cannot start extension ${name}: ${command}: ${hint}.`, { data: { extension: name, command, errno: error.code }, cause: error });
}

/** Throws MepError(ERR_USAGE) unless `cwd` is an existing directory (MEP 0.1, Security: chosen explicitly). */
export function checkWorkingDirectory(name: string, cwd: string): void {
  if (typeof cwd !== 'string' || cwd === '' || !existsSync(cwd) || !statSync(cwd).isDirectory()) {
    throw new MepError(LocalErrorCode.Usage, `Cannot start extension ${name}: the working directory ${JSON.stringify(cwd)} is not an existing directory.`, { data: { extension: name, cwd } });
  }
}

/**
 * Throws MepError(ERR_USAGE) unless the command, the arguments and the environment can reach the
 * child exactly as given: no NUL anywhere (the system ends a string there), and every environment
 * name non-empty and without '=' (the system splits an entry at its first '=': 'A=B' with value
 * 'c' would arrive as A with value 'B=c', and an empty name not at all).
 */
export function checkLaunchValues(name: string, command: string, args: readonly string[], env: Readonly<Record<string, string>>): void {
  const refuse = (what: string, remedy: string, data: Record<string, unknown>): never => {
    throw new MepError(LocalErrorCode.Usage, `Cannot start extension ${name}: ${what}. ${remedy}`, { data: { extension: name, ...data } });
  };
  if (command.includes('\0')) refuse(`its command ${JSON.stringify(command)} holds a NUL character`, 'Remove it.', { command });
  args.forEach((arg, index) => {
    if (arg.includes('\0')) refuse(`its argument ${index} ${JSON.stringify(arg.slice(0, 80))} holds a NUL character`, 'Remove it from the arguments.', { argument: index });
  });
  for (const [key, value] of Object.entries(env)) {
    if (key === '' || key.includes('=') || key.includes('\0')) {
      refuse(`the environment name ${JSON.stringify(key)} is empty or holds "=" or a NUL character, which no environment can carry`, 'Rename the entry in "env".', { envName: key });
    }
    if (value.includes('\0')) refuse(`the value of the environment entry ${JSON.stringify(key)} holds a NUL character`, 'Remove it from the value.', { envName: key });
  }
}

/** A child started, and how it is contained. */
export interface SpawnedChild {
  child: ChildProcessWithoutNullStreams;
  /** True when it runs in a PID namespace of its own (containment.ts). */
  namespaced: boolean;
  /** True when it runs under the init shell, which reports a signal as 128 + N. */
  wrapped: boolean;
  /** Why it runs in its process group only, when it does. */
  groupOnly?: string;
}

/**
 * Spawns the extension with three pipes and nothing else: no inherited environment, no other
 * descriptor (Node.js opens its own with close-on-exec), a group of its own on POSIX, and a PID
 * namespace of its own where the system allows it (containment.ts).
 */
export function spawnChild(options: ProcessTransportOptions): SpawnedChild {
  const found = containment();
  const contained: Containment = options.containment === 'process-group' ? { kind: 'process-group', reason: 'asked for (containment: process-group)', init: found.kind === 'pid-namespace' || found.init } : found;
  const args = [...(options.args ?? [])];
  checkLaunchValues(options.name, options.command, args, options.env ?? {});
  const launch = containedCommand({ command: options.command, args }, options.env ?? {}, contained);
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(launch.command, launch.args, { cwd: options.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, detached: PROCESS_GROUPS });
  } catch (error) {
    // Node.js throws some refusals of the system instead of emitting them (E2BIG).
    const errno = error as NodeJS.ErrnoException;
    if (typeof errno?.code === 'string' && errno.code.startsWith('E')) throw spawnError(options.name, options.command, errno);
    throw error;
  }
  if (child.pid !== undefined) trackGroup(child.pid);
  return { child, namespaced: launch.namespaced, wrapped: launch.wrapped, ...(contained.kind === 'process-group' ? { groupOnly: contained.reason } : {}) };
}
