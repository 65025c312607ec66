/**
 * One behaviour for tests and installs: the test kit runs an extension with what its
 * `extension.json` asks for — `limits`, the `clock` and `random` permissions, a process's `env` —
 * as `mep install` would, unless the test says otherwise (its own `limits`, `grants` or `env`
 * win, member by member; `manifest: false` applies none).
 */
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_FILE, readManifest, type ExtensionManifest } from '../registry/manifest.ts';
import type { OpenExtensionOptions } from './open-extension.ts';

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, () => false);

/**
 * The extension.json of the project `entry` belongs to: in its folder or the nearest parent,
 * looking no further up than the first folder with a package.json.
 */
async function findManifest(entry: string): Promise<string | undefined> {
  let dir = dirname(entry);
  for (;;) {
    if (await exists(join(dir, MANIFEST_FILE))) return dir;
    if (await exists(join(dir, 'package.json'))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The folder of the manifest `options.manifest` names (a folder or its extension.json), or the one found for `entry`. */
async function manifestFolder(option: OpenExtensionOptions['manifest'], entry: string | undefined, cwd: string): Promise<string | undefined> {
  if (option === false) return undefined;
  if (option === undefined) return entry === undefined ? undefined : findManifest(entry);
  const path = resolve(cwd, option instanceof URL ? fileURLToPath(option) : option);
  return path.endsWith(MANIFEST_FILE) ? dirname(path) : path;
}

/**
 * `options` with the manifest's limits, grants and env under the test's own. Throws the
 * registry's MepError when a named or found extension.json is not a valid manifest.
 */
export async function withManifest(options: OpenExtensionOptions, entry: string | undefined, cwd: string): Promise<{ options: OpenExtensionOptions; manifest?: ExtensionManifest }> {
  const folder = await manifestFolder(options.manifest, entry, cwd);
  if (folder === undefined) return { options };
  const manifest = await readManifest(folder);
  const { clock, random } = manifest.permissions ?? {};
  const grants = { ...(clock ? { clock } : {}), ...(random ? { random } : {}), ...options.grants };
  const limits = { ...manifest.limits, ...options.limits };
  const env = options.env ?? manifest.env;
  return {
    manifest,
    options: {
      ...options,
      ...(Object.keys(grants).length > 0 ? { grants } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      ...(env !== undefined ? { env: { ...env } } : {}),
    },
  };
}
