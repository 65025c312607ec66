/**
 * `mep trust` and `mep untrust`: whether the secret approvals of a project's `.mep/config.json`
 * count. They count only while the file is byte for byte what the user trusted (recorded with
 * its sha256 in `$MEP_HOME/trusted.json`), so a cloned repository approves nothing by itself.
 */
import { listTrusted, trustFileOf, trustProjectConfig, untrustProjectConfig } from '../../registry/trust.ts';
import type { TrustResult } from '../../registry/trust.ts';
import { trustProjectLock } from '../../registry/trust-lock.ts';
import type { LockTrustResult } from '../../registry/trust-lock.ts';
import type { RegistryPaths } from '../../registry/paths.ts';
import { pathExists } from '../../registry/paths.ts';
import { resolve } from 'node:path';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Io } from '../io.ts';
import type { Command } from './command.ts';
import { parseFlags } from './command.ts';
import { cliRegistryPaths } from './extension-argument.ts';
import { registryPaths } from '../../registry/paths.ts';
import { withJsonErrors } from './operation.ts';

function printTrusted(io: Io, trusted: TrustResult): void {
  io.out(`${trusted.already ? 'Already trusted' : 'Trusted'} ${trusted.path} (sha256 ${trusted.sha256.slice(0, 16)}…): its secret approvals now count.`);
  const ids = Object.keys(trusted.secrets);
  if (ids.length === 0) io.out('  it approves no secrets');
  for (const id of ids) io.out(`  ${id}: ${(trusted.secrets[id] ?? []).join(', ') || '(none)'}`);
}

function printLock(io: Io, lock: LockTrustResult): void {
  io.out(`${lock.already ? 'Already trusted' : 'Trusted'} ${lock.path} (sha256 ${lock.sha256.slice(0, 16)}…): its process and http extensions now run.`);
  if (lock.runs.length === 0) io.out('  it pins no process or http extension');
  for (const e of lock.runs) io.out(`  ${e.id} ${e.version} (${e.runtime})${e.runtime === 'process' ? ': runs with your rights' : ''}`);
}

/** Trusts the project's config and lock, whichever exist; ERR_USAGE when neither does. */
async function trustProject(paths: RegistryPaths): Promise<{ config?: TrustResult; lock?: LockTrustResult }> {
  // The config first: a malformed one is refused before anything is recorded.
  const config = (await pathExists(paths.project.config)) || !(await pathExists(paths.project.lock)) ? await trustProjectConfig(paths) : undefined;
  const lock = await trustProjectLock(paths);
  return { ...(config ? { config } : {}), ...(lock ? { lock } : {}) };
}

export const trustCommand: Command = {
  summary: "trust a project's .mep/config.json approvals and .mep/extensions.lock (records their sha256)",
  help: `Usage: mep trust [<project dir>] [--list] [--json]

A project's .mep/config.json may approve secrets for extensions, but a repository you clone
can ship one: its approvals count only once you trust that exact file. mep trust records the
file's absolute path and sha256 in $MEP_HOME/trusted.json and prints what it approves (the
project is the current folder, or the one given); any
later edit (a pull, a branch switch) makes it untrusted again until you run mep trust again.
Your own $MEP_HOME/config.json always counts. A file("…") reference only the project approves
is read only inside the project.

It records the project's .mep/extensions.lock the same way: a process extension (native code,
your rights) or http extension installed in the project's scope runs only while that lock is
what you trusted; it lists what the lock pins that runs outside the sandbox. Wasm extensions
run sandboxed either way; your user-scope extensions and --extension ./path are yours.

  --list   list the trusted files and their state: trusted, changed (edited since), missing
  --json   print the result as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { list: { type: 'boolean' }, json: { type: 'boolean' } }, 'trust');
    return withJsonErrors(io, values.json, async () => {
      if (positionals.length > 1 || (values.list && positionals.length > 0)) throw new UsageError(`mep trust takes at most one project folder, and --list none; got ${positionals.join(' ')}. Run 'mep trust --help'.`);
      const paths = registryPaths({ cwd: resolve(io.cwd, positionals[0] ?? '.'), env: process.env });
      if (values.list) {
        const trusted = await listTrusted(paths);
        if (values.json) await io.json({ file: trustFileOf(paths), trusted });
        else if (trusted.length === 0) io.out(`No project configuration is trusted (${trustFileOf(paths)}).`);
        else for (const e of trusted) io.out(`${e.state.padEnd(8)} ${e.path}  sha256 ${e.sha256.slice(0, 16)}…${e.trustedAt ? `  since ${e.trustedAt}` : ''}`);
        return ExitCode.Ok;
      }
      const { config, lock } = await trustProject(paths);
      if (values.json) await io.json({ success: true, ...config, ...(lock ? { lock } : {}) });
      else {
        if (config) printTrusted(io, config);
        if (lock) printLock(io, lock);
        io.out("Any edit to them makes them untrusted again until you run 'mep trust' again; 'mep untrust' forgets them.");
      }
      return ExitCode.Ok;
    });
  },
};

export const untrustCommand: Command = {
  summary: "forget a project's trusted .mep/config.json and .mep/extensions.lock",
  help: `Usage: mep untrust [<project dir or config file>] [--all] [--json]

Removes the project's .mep/config.json and .mep/extensions.lock (of the current folder, or of
the folder or file given, which may be gone) from $MEP_HOME/trusted.json: its secret approvals
stop counting, its process and http extensions stop running. --all
forgets every trusted project configuration. Nothing trusted is not an error.

  --all    forget every trusted project configuration
  --json   print what was removed as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, { all: { type: 'boolean' }, json: { type: 'boolean' } }, 'untrust');
    return withJsonErrors(io, values.json, async () => {
      if (positionals.length > 1 || (values.all && positionals.length > 0)) throw new UsageError(`mep untrust takes at most one project folder or config file, or --all alone. Run 'mep untrust --help'.`);
      const paths = cliRegistryPaths(io);
      const given = positionals[0];
      const { removed } = await untrustProjectConfig(paths, { ...(given === undefined ? {} : { path: resolve(io.cwd, given) }), ...(values.all ? { all: true } : {}) });
      if (values.json) await io.json({ success: true, removed });
      else if (removed.length === 0) io.out(`Nothing to untrust: ${given === undefined && !values.all ? paths.project.config : given ?? 'no file'} was not trusted.`);
      else for (const path of removed) io.out(`Untrusted ${path}: ${path.endsWith('extensions.lock') ? 'its process and http extensions no longer run' : 'its secret approvals no longer count'}.`);
      return ExitCode.Ok;
    });
  },
};
