/**
 * `extension.json`, the package manifest: identity, runtime, the artifact's path and the
 * permissions the package asks for. It never declares capabilities: the claim set is read from
 * the artifact (MEP 0.1, Capability claims: "no manifest declares a capability by hand").
 */
import { join } from 'node:path';
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_BOUNDS, HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { parseJsonFile } from '../files/json-file.ts';
import { readRegularFile } from '../files/regular-file.ts';
import { sha256Bytes } from './integrity.ts';
import { ExtensionLimits } from '../protocol/limits.ts';
import { ExtensionId } from './extension-id.ts';
import { isSecretReference } from './secret-reference.ts';

/** The manifest's file name inside a package directory. */
export const MANIFEST_FILE = 'extension.json';

/** A relative path inside the package that cannot leave it (and names something: not `.`). */
const PackagePath = z
  .string()
  .min(1)
  .refine(
    (p) => !/^([/\\]|[A-Za-z]:)/.test(p) && !p.split(/[/\\]/).includes('..') && !p.includes('\0') && p.split(/[/\\]/).some((part) => part !== '' && part !== '.'),
    'must be a relative path naming a file inside the package (no "..", not absolute, not ".")',
  );

/**
 * Environment names and values. The names are data: kept as given, also `__proto__`, which a
 * record schema would drop without a word (the file's reader keeps it an own member).
 */
const Environment = z.custom<Record<string, string>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string'),
  'an object of environment names to string values',
);

/** What a package asks the host for; granted only when configuration approves too. */
export const ManifestPermissions = z.looseObject({
  /** Secret references the extension may resolve, compared exactly (`env("NAME")`, `file("path")`). */
  secrets: z.array(z.string().refine(isSecretReference, 'a secret reference is env("NAME") or file("path")')).optional(),
  /** Hosts a process extension declares it contacts (informational; process extensions are not sandboxed). */
  network: z.array(z.string()).optional(),
  /** A wasm extension reads the host's wall clock (without it, time is virtual: 0 when each call starts). */
  clock: z.boolean().optional(),
  /** A wasm extension gets strong randomness (crypto.getRandomValues; without it Math.random repeats per call). */
  random: z.boolean().optional(),
});
/** What a package asks the host for. */
export type ManifestPermissions = z.infer<typeof ManifestPermissions>;

/** Where a `runtime: "http"` extension is served: http(s), no credentials in it (they go in `token`). */
const ServedUrl = z.string().refine((text) => {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}, 'url must be an http:// or https:// address').refine((text) => !/^https?:\/\/[^/]*@/i.test(text), 'url must not carry credentials: name a secret reference in "token" instead');

/** The `extension.json` document. */
export const ExtensionManifest = z.looseObject({
  id: ExtensionId,
  // Both go where claims go (the lock, `mep list`): bounded as a claim's strings are, before anything is stored.
  name: z.string().min(1).max(HOST_BOUNDS.maxMetadataStringLength),
  version: z.string().min(1).max(HOST_BOUNDS.maxMetadataStringLength),
  /** `wasm` and `process` run an artifact of the package here; `http` is an extension served at `url`. */
  runtime: z.enum(['wasm', 'process', 'http']),
  /** The artifact's path in the package; for a process, the stem of per-platform executables. Not for `http`. */
  entry: PackagePath.optional(),
  /** `http` only: where the extension is served (one POST per JSON-RPC request). */
  url: ServedUrl.optional(),
  /**
   * `http` only: the secret reference (`env("NAME")`, `file("path")`) of the bearer token sent to
   * `url`; it must be listed in `permissions.secrets` and approved by configuration like any secret.
   */
  token: z.string().refine(isSecretReference, 'a secret reference is env("NAME") or file("path")').optional(),
  /**
   * Files and directories shipped besides `extension.json` and the entry (data the artifact
   * reads at run time), relative to the package. Install and `mep pack` copy nothing else.
   */
  files: z.array(PackagePath).optional(),
  args: z.array(z.string()).optional(),
  /** The process environment: exactly these entries, nothing inherited. */
  env: Environment.optional(),
  permissions: ManifestPermissions.optional(),
  /**
   * Resource limits this extension needs beyond the defaults (256 MiB memory, 30 s per call,
   * 64 MiB per message); `mep --max-memory`, `--call-timeout` and `--max-message` win over them.
   */
  limits: ExtensionLimits.optional(),
}).superRefine((manifest, context) => {
  const issue = (path: string, message: string): void => context.addIssue({ code: 'custom', path: [path], message });
  if (manifest.runtime !== 'http') {
    if (manifest.entry === undefined) issue('entry', `runtime "${manifest.runtime}" needs an entry: the artifact's path in the package`);
    for (const key of ['url', 'token'] as const) if (manifest[key] !== undefined) issue(key, `only an extension with runtime "http" has a ${key}`);
    return;
  }
  if (manifest.url === undefined) issue('url', 'runtime "http" needs a url: where the extension is served');
  for (const key of ['entry', 'files', 'args', 'env'] as const) if (manifest[key] !== undefined) issue(key, `runtime "http" runs nothing here: remove "${key}"`);
  if (manifest.token !== undefined && !(manifest.permissions?.secrets ?? []).includes(manifest.token)) {
    issue('token', `the token reference ${manifest.token} must also be listed in permissions.secrets`);
  }
});
/** The `extension.json` document. */
export type ExtensionManifest = z.infer<typeof ExtensionManifest>;

/** The package path of the artifact of a manifest that runs one here (wasm, process); ERR_REGISTRY for `http`. */
export function entryOf(manifest: ExtensionManifest): string {
  if (manifest.entry !== undefined) return manifest.entry;
  throw new MepError(LocalErrorCode.Registry, `Extension '${manifest.id}' is served at ${manifest.url ?? 'a URL'} (runtime "http"); it has no artifact to build, pack or hash.`, {
    data: { extension: manifest.id, reason: 'no-artifact' },
  });
}

/** Validates a manifest document; `where` names it in errors. */
export function parseManifest(doc: unknown, where: string): ExtensionManifest {
  if (typeof doc === 'object' && doc !== null) {
    const handWritten = ['capabilities', 'claims'].find((key) => key in doc);
    if (handWritten) {
      throw new MepError(LocalErrorCode.Registry, `${where} declares "${handWritten}"; capability claims are read from the artifact with describe, never written by hand. Remove the member.`, {
        data: { manifest: where, member: handWritten },
      });
    }
  }
  const parsed = ExtensionManifest.safeParse(doc);
  if (!parsed.success) {
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    const what = first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'invalid';
    throw new MepError(LocalErrorCode.Registry, `${where} is not a valid extension manifest (${what}). Fix the package's ${MANIFEST_FILE}.`, {
      data: { manifest: where, issues },
    });
  }
  return parsed.data;
}

/** A manifest as read, with the sha256 of the very bytes it was parsed from. */
export interface ManifestRead {
  manifest: ExtensionManifest;
  /** The lowercase hex sha256 of the bytes parsed: what the lock's `manifestSha256` is compared with. */
  sha256: string;
}

/**
 * Reads and validates `<dir>/extension.json`, a bounded regular file (a link is refused when
 * `noFollow`, as for an installed package, which install never makes with one), with a hostile
 * key refused anywhere but among the `env` names; returns it with the hash of the bytes parsed,
 * so that what is checked against the lock is exactly what decides how the artifact runs.
 */
export async function readManifestFile(dir: string, options: { noFollow?: boolean } = {}): Promise<ManifestRead> {
  const path = join(dir, MANIFEST_FILE);
  const file = { what: `the manifest`, code: LocalErrorCode.Registry, maxBytes: HOST_FILE_LIMITS.smallFileBytes, noFollow: options.noFollow ?? false } as const;
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, file);
  } catch (error) {
    if (!(error instanceof MepError) || (error.data as { reason?: string }).reason !== 'missing') throw error;
    throw new MepError(LocalErrorCode.Registry, `No ${MANIFEST_FILE} in ${dir}; a package is a directory with ${MANIFEST_FILE} and its artifact.`, {
      cause: error,
      data: { manifest: path, file: path, reason: 'missing' },
    });
  }
  const doc = parseJsonFile(path, bytes.toString('utf8'), { ...file, keys: { dataAt: (at) => at.length === 1 && at[0] === 'env' }, remedy: `Fix the package's ${MANIFEST_FILE}.` });
  return { manifest: parseManifest(doc, path), sha256: sha256Bytes(bytes) };
}

/** Reads and validates `<dir>/extension.json`; see {@link readManifestFile}. */
export async function readManifest(dir: string): Promise<ExtensionManifest> {
  return (await readManifestFile(dir)).manifest;
}
