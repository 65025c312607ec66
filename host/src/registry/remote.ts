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
import { Method } from '../protocol/index.ts';
import type { JsonRpcMessage, Transport } from '../transport/types.ts';
import { secretApprovals } from './approvals.ts';
import type { LaunchSpec } from './launch.ts';
import { MANIFEST_FILE } from './manifest.ts';
import type { ExtensionManifest } from './manifest.ts';
import type { RegistryPaths } from './paths.ts';
import { createRedactor, type Redactor } from './redact.ts';
import { createSecretResolver } from './secrets.ts';
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

/** What resolving a remote's token needs besides its manifest. */
export interface TokenContext {
  /** The registry it is installed in (or installed into): its configuration approves the reference. */
  paths: RegistryPaths;
  /** Takes the token once resolved, so no output of the run shows it. Default: a redactor of its own. */
  redactor?: Redactor;
}

/**
 * The bearer token of `manifest`, resolved as its sessions' secrets are (listed in the manifest,
 * approved by the configuration of `context.paths`, `file("…")` relative to the project);
 * undefined when it names none. A refusal is ERR_REGISTRY naming the reference and what to do;
 * the value never appears in it.
 */
export async function remoteToken(manifest: ExtensionManifest, context: TokenContext): Promise<string | undefined> {
  if (manifest.token === undefined) return undefined;
  const approvals = await secretApprovals(context.paths, manifest.id);
  const resolveSecret = createSecretResolver({
    extension: manifest.id,
    requested: manifest.permissions?.secrets ?? [],
    ...approvals,
    baseDir: context.paths.projectRoot,
    redactor: context.redactor ?? createRedactor(),
  });
  try {
    return await resolveSecret({ reference: manifest.token });
  } catch (error) {
    const reason = isMepError(error) ? error.message : String(error);
    const untrusted = approvals.untrusted?.references.includes(manifest.token) ? approvals.untrusted : undefined;
    if (untrusted) {
      // Nothing is sent: the token's only approval is a project configuration the user has not trusted (as it is now).
      throw new MepError(LocalErrorCode.Registry, `Cannot send the token of '${manifest.id}' to ${manifest.url}: ${reason}. The file is ${untrusted.config}; trust it with 'mep trust' in ${context.paths.projectRoot}.`, {
        cause: error,
        data: { extension: manifest.id, reference: manifest.token, reason: 'untrusted-config', config: untrusted.config, trust: untrusted.reason },
      });
    }
    throw new MepError(LocalErrorCode.Registry, `Cannot send the token of '${manifest.id}' to ${manifest.url}: ${reason}.`, {
      cause: error,
      data: { extension: manifest.id, reference: manifest.token, reason: 'token-unavailable' },
    });
  }
}

/**
 * The refusal of a server that reports another identity than the lock pins (another extension,
 * or another version of it, now answers at the URL); undefined when it reports the pinned one.
 */
function identityRefusal(spec: LaunchSpec, pinned: RemoteIdentity, reported: RemoteIdentity): MepError | undefined {
  if (pinned.id === reported.id && pinned.version === reported.version) return undefined;
  return new MepError(
    LocalErrorCode.Registry,
    `Refusing to run extension '${spec.name}': the server at ${spec.path} now reports ${reported.id} ${reported.version}, but the lock pins ${pinned.id} ${pinned.version}. If the server was upgraded on purpose, pin it again with 'mep install <source>'.`,
    { data: { extension: spec.name, url: spec.path, expected: pinned, actual: { id: reported.id, version: reported.version }, reason: 'remote-identity-changed' } },
  );
}

/** The `extension` identity a result of initialize or describe reports, when it has one to compare. */
function reportedIdentity(result: unknown): RemoteIdentity | undefined {
  const extension = typeof result === 'object' && result !== null ? (result as { extension?: unknown }).extension : undefined;
  if (typeof extension !== 'object' || extension === null) return undefined;
  const { id, version } = extension as { id?: unknown; version?: unknown };
  return typeof id === 'string' && typeof version === 'string' ? { id, version } : undefined;
}

/**
 * `inner` (the transport to an installed remote), refusing every session whose server reports
 * another identity than `spec.remote.identity` pins: the answer to `morphir.initialize` or
 * `morphir.extension.describe` that names another id or version never reaches the session; the
 * transport closes instead with ERR_REGISTRY, which the pending request (and every later one)
 * rejects with. Applied where the transport is opened (launch.ts), so every session on it (a CLI
 * command, the conformance suite, a session `mep serve` proxies) is checked alike. The only
 * place a method is read: to know which answers carry the identity.
 */
export function withPinnedIdentity<T extends Transport>(inner: T, spec: LaunchSpec): T {
  const pinned = spec.remote?.identity;
  if (pinned === undefined) return inner;
  const asked = new Set<string | number>();
  const verdicts = new WeakMap<object, MepError | undefined>();
  let refused: MepError | undefined;
  const wrapped = Object.create(inner) as T;
  wrapped.send = (message) => {
    const { id, method } = message;
    if ((method === Method.Initialize || method === Method.Describe) && (typeof id === 'string' || typeof id === 'number')) asked.add(id);
    inner.send(message);
  };
  const verdictOf = (message: JsonRpcMessage): MepError | undefined => {
    if (verdicts.has(message)) return verdicts.get(message);
    const { id } = message;
    const reported = (typeof id === 'string' || typeof id === 'number') && asked.delete(id) ? reportedIdentity(message.result) : undefined;
    const verdict = reported === undefined ? undefined : identityRefusal(spec, pinned, reported);
    verdicts.set(message, verdict);
    if (verdict !== undefined && refused === undefined) {
      refused = verdict;
      void inner.close();
    }
    return verdict;
  };
  wrapped.onMessage = (listener) =>
    inner.onMessage((message) => {
      if (refused === undefined && verdictOf(message) === undefined) listener(message);
    });
  wrapped.onClose = (listener) => inner.onClose((error) => listener(error ?? refused));
  return wrapped;
}

/** Stages a `runtime: "http"` package: its manifest alone, hashed as it is copied. */
export async function stageRemotePackage(packageDir: string, stagingDir: string): Promise<StagedPackage> {
  await mkdir(stagingDir, { recursive: true });
  const target = join(stagingDir, MANIFEST_FILE);
  const copied = await copyRegularFile(join(packageDir, MANIFEST_FILE), target, { what: 'the manifest', code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.smallFileBytes });
  return { dir: stagingDir, artifact: target, sha256: new Map([[MANIFEST_FILE, copied.sha256]]) };
}
