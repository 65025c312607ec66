/**
 * A project's registry (`.mep/`) comes with the project, and a cloned project can ship any part
 * of it as a symbolic link to anywhere (`.mep -> /home/me/.ssh`). Before mep changes a project
 * scope (install, remove, a lock write) every path it writes there is checked not to be a link:
 * `.mep`, `.mep/extensions`, the package directory, `extensions.lock` and its `.lock` file. The
 * user scope (`$MEP_HOME`) is the user's own and may be a link (a dotfiles folder). The check
 * stands against what a project holds when mep starts, not against a process racing it (which
 * could write the project's files itself). Node edge.
 */
import { lstat, readlink } from 'node:fs/promises';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { packageDirOf } from './paths.ts';
import type { ScopePaths } from './paths.ts';
import type { ExtensionId } from './extension-id.ts';

/**
 * Throws MepError(ERR_REGISTRY, `data.reason: 'symlink'`, `data.path`, `data.target`) when
 * `scope` is a project's and a path mep writes in it is a symbolic link; `id` adds that
 * extension's package directory. The user scope passes unchecked.
 *
 * @example
 * await refuseLinkedScope(paths.project, 'acme.crm');
 */
export async function refuseLinkedScope(scope: ScopePaths, id?: ExtensionId): Promise<void> {
  if (scope.scope !== 'project') return;
  const paths = [scope.root, scope.extensions, ...(id === undefined ? [] : [packageDirOf(scope, id)]), scope.lock, `${scope.lock}.lock`];
  for (const path of paths) {
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined || !info.isSymbolicLink()) continue;
    const target = await readlink(path).catch(() => '?');
    throw new MepError(
      LocalErrorCode.Registry,
      `Refusing to write ${path}: it is a symbolic link (to ${target}), and mep writes a project's registry only into the project's own folders and files (a link shipped with a project could send the write anywhere). Replace the link with a folder or file of its own (or remove it), then run the command again.`,
      { data: { path, target, reason: 'symlink' } },
    );
  }
}
