/** `mep install <source>`: install and pin an extension package. */
import type { ArchiveLimits } from '../../registry/archive/budget.ts';
import { installExtension } from '../../registry/install.ts';
import { readManifest } from '../../registry/manifest.ts';
import { launchSpecOf } from '../../registry/package-launch.ts';
import type { LaunchSpec } from '../../registry/launch.ts';
import { ExitCode, UsageError } from '../exit-codes.ts';
import type { Command } from './command.ts';
import { onePositional, parseFlags } from './command.ts';
import { cliRegistryPaths } from './extension-argument.ts';
import { withJsonErrors } from './operation.ts';
import { parseDuration, parseSize } from './limit-flags.ts';
import { formatWasmAbi, wasmAbiOf } from './wasm-abi.ts';

/** Path of the artifact of the package installed in `dir`. */
async function installedArtifact(dir: string): Promise<LaunchSpec> {
  return launchSpecOf(await readManifest(dir), dir);
}

/** The archive budgets given on the command line. */
function archiveLimitFlags(maxUnpacked: string | undefined, maxEntries: string | undefined, fetchTimeout: string | undefined): Partial<ArchiveLimits> {
  const limits: Partial<ArchiveLimits> = {};
  if (fetchTimeout !== undefined) limits.maxFetchMs = parseDuration('--fetch-timeout', fetchTimeout);
  if (maxUnpacked !== undefined) limits.maxBytes = parseSize('--max-unpacked', maxUnpacked);
  if (maxEntries !== undefined) {
    if (!/^[1-9][0-9]{0,8}$/.test(maxEntries)) throw new UsageError(`--max-entries takes a positive whole number, got '${maxEntries}'.`);
    limits.maxEntries = Number(maxEntries);
  }
  return limits;
}

export const installCommand: Command = {
  summary: 'install an extension package from a directory, git or an archive',
  help: `Usage: mep install <source> [--user] [--probe | --no-probe] [--max-unpacked SIZE] [--max-entries N] [--fetch-timeout DURATION] [--json]

Copies the package (extension.json, its entry, a process entry's source map <entry>.map when it
has one, and the files its "files" lists; nothing else) into .mep/extensions/<id>/ (or
$MEP_HOME/extensions/<id>/ with --user), hashes its artifact and pins it in the scope's
extensions.lock. A path that leaves the package through a symlink is refused; a package with
SHA256SUMS (as 'mep pack' writes) is checked against it. A failed install changes nothing.

<source> is one of:
  ./path/to/package                         a directory with extension.json and the artifact
  https://host/repo.git#v1.2.0              git (also git@host:repo.git, file:///repo.git);
  git@host:mono.git//ext/crm#main           #ref = branch, tag or commit; //dir = a subdirectory
  ./dist/crm.tar.gz#sha256=<hex>            a .tar.gz, .tgz or .zip (path, file:// or https://);
                                            #sha256 is checked before anything is extracted;
                                            extension.json at the root or in its one top directory

A process package may ship <entry>-<os>-<arch> executables (linux/darwin/windows, amd64/arm64);
only this host's is installed. wasm modules are probed with morphir.extension.describe in the
sandbox and their claims pinned; process executables never run at install (their claims are
read and pinned at first use) unless --probe is given.

  --user       install for this user ($MEP_HOME, default ~/.mep) instead of this project
  --probe      read the claims now, also for a process extension
  --no-probe   do not run the artifact at install, also for a wasm module
  --max-unpacked SIZE  an archive may take and unpack to at most SIZE, a git commit's tree
                       check out to at most SIZE (default 512MiB); a bigger one (a gzip or
                       git bomb) fails at the budget, nothing installed
  --max-entries N      an archive, or a git commit's tree, may hold at most N members
                       (default 10000)
  --fetch-timeout DURATION  a download, or a git clone and checkout, must arrive within
                       DURATION (default 10m); a server that stalls or trickles is stopped
  --json       print the installed entry as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseFlags(
      argv,
      { user: { type: 'boolean' }, probe: { type: 'boolean' }, 'no-probe': { type: 'boolean' }, json: { type: 'boolean' }, 'max-unpacked': { type: 'string' }, 'max-entries': { type: 'string' }, 'fetch-timeout': { type: 'string' } },
      'install',
    );
    return withJsonErrors(io, values.json, async () => {
      const source = onePositional(positionals, 'source', 'install');
      if (values.probe && values['no-probe']) throw new UsageError(`--probe and --no-probe exclude each other. Run 'mep install --help'.`);
      const probe = values.probe ? true : values['no-probe'] ? false : undefined;
      const archiveLimits = archiveLimitFlags(values['max-unpacked'], values['max-entries'], values['fetch-timeout']);
      const result = await installExtension({ source, paths: cliRegistryPaths(io), scope: values.user ? 'user' : 'project', archiveLimits, redactor: io.redactor, ...(probe === undefined ? {} : { probe }) });
      const abi = result.runtime === 'wasm' ? await wasmAbiOf(await installedArtifact(result.dir)) : undefined;
      // The lock pins other process or http extensions the user never trusted: the install does not trust them for the user.
      if (!result.trusted) io.err(`note: ${result.lock} also pins process or http extensions you have not trusted (a cloned repository's, or changed since you trusted it); none of them, ${result.id} included${result.runtime === 'wasm' ? ' (wasm runs sandboxed anyway)' : ''}, runs until you review the lock and run 'mep trust'.`);
      if (values.json) {
        await io.json({ success: true, id: result.id, version: result.version, runtime: result.runtime, ...(abi ? { abi } : {}), scope: result.scope, dir: result.dir, lock: result.lock, replaced: result.replaced, trusted: result.trusted, entry: result.entry });
      } else {
        const pinned = result.entry.claims ? 'claims pinned' : 'claims will be read at first use';
        io.out(`${result.replaced ? 'Replaced' : 'Installed'} ${result.id} ${result.version} (${result.runtime}${result.entry.platform ? `, ${result.entry.platform}` : ''}) in ${result.dir}`);
        io.out(`  sha256 ${result.entry.sha256}, ${pinned}; locked in ${result.lock}`);
        if (abi) io.out(`  ${formatWasmAbi(abi)}`);
      }
      return ExitCode.Ok;
    });
  },
};
