/**
 * Where extensions live: project-local `.mep/` (wins) and user-wide `$MEP_HOME` (default
 * `~/.mep`). Each scope has its own `extensions/<id>/` directories, `extensions.lock` and
 * `config.json`.
 */
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseExtensionId } from './extension-id.ts';
import { mepHome } from './mep-home.ts';
import type { ExtensionId } from './extension-id.ts';

/** The two install scopes, in precedence order. */
export type Scope = 'project' | 'user';

/** The files of one scope. */
export interface ScopePaths {
  scope: Scope;
  /** `.mep` in the project, or `$MEP_HOME`. */
  root: string;
  /** `<root>/extensions`: one directory per installed id. */
  extensions: string;
  /** `<root>/extensions.lock`. */
  lock: string;
  /** `<root>/config.json`: secret approvals. */
  config: string;
}

/** Both scopes, project first. */
export interface RegistryPaths {
  /** The project directory (the working directory of the command). */
  projectRoot: string;
  project: ScopePaths;
  user: ScopePaths;
}

/** Where to look: the project directory and the environment holding `MEP_HOME`. */
export interface RegistryLocation {
  cwd: string;
  env?: Readonly<Record<string, string | undefined>>;
}

function scopePaths(scope: Scope, root: string): ScopePaths {
  return { scope, root, extensions: join(root, 'extensions'), lock: join(root, 'extensions.lock'), config: join(root, 'config.json') };
}

/**
 * The registry's directories for a project at `cwd`; `MEP_HOME` (default `~/.mep`) is read from
 * `env` (default `process.env`).
 *
 * @example
 * const paths = registryPaths({ cwd: process.cwd() });
 */
export function registryPaths(location: RegistryLocation): RegistryPaths {
  const env = location.env ?? process.env;
  const projectRoot = resolve(location.cwd);
  return { projectRoot, project: scopePaths('project', join(projectRoot, '.mep')), user: scopePaths('user', mepHome(projectRoot, env)) };
}

/** The scopes in precedence order. */
export function scopesOf(paths: RegistryPaths): [ScopePaths, ScopePaths] {
  return [paths.project, paths.user];
}

/** True when something exists at `path` (a missing file or an unreadable parent: false). */
export async function pathExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

/**
 * The package directory of `id` in `scope`: the only place an id becomes a path. The id is
 * checked again here (a cast cannot smuggle `../x` past the type), so the result is always one
 * plain segment below `scope.extensions`.
 */
export function packageDirOf(scope: ScopePaths, id: ExtensionId): string {
  return join(scope.extensions, parseExtensionId(id));
}
