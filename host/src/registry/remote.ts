/**
 * Installed extensions served elsewhere (`runtime: "http"` with a `url`). Nothing of theirs runs
 * here, so the lock cannot hash their code: it pins the manifest (the only file installed, which
 * names the URL and the token's reference), the URL, and the identity (id and version) the server
 * reported at install; a session whose server now reports another identity is refused before any
 * operation is sent. The bearer token is a secret reference the manifest names and lists in
 * `permissions.secrets`, resolved only when the user's configuration approves it, and redacted.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { copyRegularFile } from '../files/copy-file.ts';
import type { LaunchSpec } from './launch.ts';
import { MANIFEST_FILE } from './manifest.ts';
import type { ExtensionManifest } from './manifest.ts';
import type { StagedPackage } from './stage-package.ts';

/** What the lock pins of the server's answer: the extension's id and version. */
export interface RemoteIdentity {
  id: string;
  version: string;
}

/** The launch spec of a `runtime: "http"` manifest: its URL, limits, and (once resolved) token and pinned identity. */
export function remoteSpecOf(manifest: ExtensionManifest, options: { token?: string; identity?: RemoteIdentity } = {}): LaunchSpec {
  return {
    name: manifest.id,
    runtime: 'http',
    path: manifest.url as string,
    remote: { ...(options.token === undefined ? {} : { token: options.token }), ...(options.identity ? { identity: options.identity } : {}) },
    ...(manifest.limits ? { limits: { ...manifest.limits } } : {}),
  };
}

/**
 * The token of `manifest`, resolved with `resolveSecret` (the host's `secret.resolve`: listed in
 * the manifest, approved by configuration); undefined when it names none. A refusal is
 * ERR_REGISTRY naming the reference and what to do; the value never appears in it.
 */
export async function remoteToken(manifest: ExtensionManifest, resolveSecret: (params: unknown) => Promise<string>): Promise<string | undefined> {
  if (manifest.token === undefined) return undefined;
  try {
    return await resolveSecret({ reference: manifest.token });
  } catch (error) {
    const reason = isMepError(error) ? error.message : String(error);
    throw new MepError(LocalErrorCode.Registry, `Cannot send the token of '${manifest.id}' to ${manifest.url}: ${reason}.`, {
      cause: error,
      data: { extension: manifest.id, reference: manifest.token, reason: 'token-unavailable' },
    });
  }
}

/**
 * Refuses a session whose server reports another identity than the lock pins (another
 * extension, or another version of it, now answers at the URL).
 */
export function checkRemoteIdentity(spec: LaunchSpec, reported: RemoteIdentity): void {
  const pinned = spec.remote?.identity;
  if (pinned === undefined || (pinned.id === reported.id && pinned.version === reported.version)) return;
  throw new MepError(
    LocalErrorCode.Registry,
    `Refusing to run extension '${spec.name}': the server at ${spec.path} now reports ${reported.id} ${reported.version}, but the lock pins ${pinned.id} ${pinned.version}. If the server was upgraded on purpose, pin it again with 'mep install <source>'.`,
    { data: { extension: spec.name, url: spec.path, expected: pinned, actual: { id: reported.id, version: reported.version }, reason: 'remote-identity-changed' } },
  );
}

/** Stages a `runtime: "http"` package: its manifest alone, hashed as it is copied. */
export async function stageRemotePackage(packageDir: string, stagingDir: string): Promise<StagedPackage> {
  await mkdir(stagingDir, { recursive: true });
  const target = join(stagingDir, MANIFEST_FILE);
  const copied = await copyRegularFile(join(packageDir, MANIFEST_FILE), target, { what: 'the manifest', code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.smallFileBytes });
  return { dir: stagingDir, artifact: target, sha256: new Map([[MANIFEST_FILE, copied.sha256]]) };
}
