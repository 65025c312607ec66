/**
 * Which project configurations the user trusts: `$MEP_HOME/trusted.json` records the absolute
 * path and the sha256 of each `.mep/config.json` the user ran `mep trust` on. A project's secret
 * approvals count only while its config file is byte for byte what was trusted (as `direnv
 * allow` and VS Code's workspace trust do): a repository the user clones, or a pull that edits
 * the file, approves nothing by itself. The project cannot write here; it lives in user scope.
 * The same record holds each trusted `.mep/extensions.lock` (trust-lock.ts): what lets a
 * project's process and http extensions run.
 */
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { withFileLock } from '../files/file-lock.ts';
import * as z from 'zod';
import { readJsonFile } from '../files/json-file.ts';
import { isMissingFile } from '../files/regular-file.ts';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { writeFileAtomic } from './atomic-write.ts';
import { readConfigFile } from './config.ts';
import { readLockFile } from './lock.ts';
import type { ConfigFile, MepConfig } from './config.ts';
import type { RegistryPaths } from './paths.ts';

/** The file name of the trust record in `$MEP_HOME`. */
export const TRUST_FILE = 'trusted.json';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** One trusted configuration file. */
const TrustedEntry = z.strictObject({ path: z.string().min(1), sha256: Sha256, trustedAt: z.string().optional() });
/** One trusted configuration file. */
export type TrustedEntry = z.infer<typeof TrustedEntry>;
// An array of fixed-key objects: no key of the file is data, so the parser refuses every hostile key.
const TrustDocument = z.strictObject({ version: z.literal(1), trusted: z.array(TrustedEntry) });

const REMEDY = "Remove it (no project configuration is trusted then) and trust again with 'mep trust' in each project.";

/** `$MEP_HOME/trusted.json`. */
export function trustFileOf(paths: RegistryPaths): string {
  return join(paths.user.root, TRUST_FILE);
}

/** The trusted entries; none when the file does not exist. A bad file is ERR_USAGE naming it, never read in part. */
export async function readTrusted(paths: RegistryPaths): Promise<TrustedEntry[]> {
  const file = trustFileOf(paths);
  let doc: unknown;
  try {
    doc = await readJsonFile(file, { what: 'the trust record', maxBytes: HOST_FILE_LIMITS.smallFileBytes, remedy: REMEDY });
  } catch (error) {
    if (isMissingFile(error)) return [];
    throw error;
  }
  const parsed = TrustDocument.safeParse(doc);
  if (!parsed.success) {
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    throw new MepError(LocalErrorCode.Usage, `The trust record ${file} is malformed (${first ? `${first.path.join('.') || 'top level'}: ${first.message}` : 'invalid'}); nothing was read from it. ${REMEDY}`, {
      data: { file, reason: 'malformed', issues },
    });
  }
  return parsed.data.trusted;
}

/**
 * Read-modify-write of the record under its lock file (`trusted.json.lock`, files/file-lock.ts):
 * two `mep trust` (or installs) at once each keep what the other added. `change` returns the new
 * entries, or undefined to write nothing.
 */
async function updateTrusted<T>(paths: RegistryPaths, change: (entries: TrustedEntry[]) => { entries?: TrustedEntry[]; result: T }): Promise<T> {
  const file = trustFileOf(paths);
  await mkdir(dirname(file), { recursive: true });
  return withFileLock(`${file}.lock`, async () => {
    const { entries, result } = change(await readTrusted(paths));
    if (entries !== undefined) await writeFileAtomic(file, `${JSON.stringify({ version: 1, trusted: entries }, null, 2)}\n`);
    return result;
  }, { what: `the trust record ${file}` });
}

/** Records `path` (absolute) as trusted with `sha256`, replacing its earlier entry; false when it was trusted with that content already. */
export async function recordTrusted(paths: RegistryPaths, path: string, sha256: string): Promise<boolean> {
  return updateTrusted(paths, (entries) =>
    entries.some((e) => e.path === path && e.sha256 === sha256)
      ? { result: false }
      : { entries: [...entries.filter((e) => e.path !== path), { path, sha256, trustedAt: new Date().toISOString() }], result: true },
  );
}

/** Whether the project's configuration counts: `user` when it is the user's own file (a project at `$MEP_HOME`'s parent). */
export type ConfigTrust = 'trusted' | 'untrusted' | 'changed' | 'user';

/** True when the project's `.mep/config.json` is the user's own `$MEP_HOME/config.json`. */
function isUserConfig(paths: RegistryPaths): boolean {
  return resolve(paths.project.config) === resolve(paths.user.config);
}

/**
 * Whether the project's configuration `file` (as just read) counts: `trusted` only when
 * `trusted.json` records its path with the sha256 of those very bytes.
 */
export async function configTrust(paths: RegistryPaths, file: ConfigFile): Promise<ConfigTrust> {
  return isUserConfig(paths) ? 'user' : recordedTrust(paths, file.path, file.sha256);
}

/** What the trust record says of the file at `path` whose bytes hash to `sha256` (undefined: none read). */
export async function recordedTrust(paths: RegistryPaths, path: string, sha256: string | undefined): Promise<'trusted' | 'untrusted' | 'changed'> {
  const entry = (await readTrusted(paths)).find((e) => e.path === resolve(path));
  return entry === undefined ? 'untrusted' : entry.sha256 === sha256 ? 'trusted' : 'changed';
}

/** What {@link trustProjectConfig} trusted. */
export interface TrustResult {
  path: string;
  sha256: string;
  /** The approvals that now count, per extension id. */
  secrets: NonNullable<MepConfig['secrets']>;
  /** It was trusted with this very content already. */
  already: boolean;
}

/**
 * Records the project's `.mep/config.json` as trusted with the sha256 of its current content
 * (which must decode). ERR_USAGE when there is none, or when it is the user's own file.
 */
export async function trustProjectConfig(paths: RegistryPaths): Promise<TrustResult> {
  const file = await readConfigFile(paths.project.config);
  if (!file) {
    throw new MepError(LocalErrorCode.Usage, `There is no ${paths.project.config} or ${paths.project.lock} to trust: mep trust records a project's .mep/config.json and .mep/extensions.lock; run it in the project's folder.`, {
      data: { config: paths.project.config, reason: 'no-config' },
    });
  }
  if (isUserConfig(paths)) {
    throw new MepError(LocalErrorCode.Usage, `${file.path} is your own $MEP_HOME/config.json: its approvals always count, there is nothing to trust.`, { data: { config: file.path, reason: 'user-config' } });
  }
  const path = resolve(file.path);
  const already = !(await recordTrusted(paths, path, file.sha256));
  return { path, sha256: file.sha256, secrets: file.config.secrets ?? {}, already };
}

/**
 * Forgets a project's trusted configuration file and lock: the project's (default), those of
 * `target` (a project folder, or its config file or lock, which may be gone), or all. Returns the paths removed.
 */
export async function untrustProjectConfig(paths: RegistryPaths, target: { path?: string; all?: boolean } = {}): Promise<{ removed: string[] }> {
  const given = target.path === undefined ? undefined : resolve(target.path);
  const mep = given === undefined ? paths.project.root : /^(config\.json|extensions\.lock)$/.test(basename(given)) ? dirname(given) : join(given, '.mep');
  const wanted = [...(given === undefined ? [] : [given]), resolve(mep, 'config.json'), resolve(mep, 'extensions.lock')];
  return updateTrusted(paths, (entries) => {
    const removed = entries.filter((e) => target.all || wanted.includes(e.path)).map((e) => e.path);
    return { ...(removed.length > 0 ? { entries: entries.filter((e) => !removed.includes(e.path)) } : {}), result: { removed } };
  });
}

/** One trusted file and its state now: `changed` (edited since, or no longer readable as a configuration), `missing` (gone). */
export interface TrustedState extends TrustedEntry {
  state: 'trusted' | 'changed' | 'missing';
}

/** Every trusted configuration file and lock with its state now. */
export async function listTrusted(paths: RegistryPaths): Promise<TrustedState[]> {
  const listed: TrustedState[] = [];
  for (const entry of await readTrusted(paths)) {
    const read = basename(entry.path) === 'extensions.lock' ? async (path: string) => (await readLockFile(path)).sha256 : async (path: string) => (await readConfigFile(path))?.sha256;
    const sha256 = await read(entry.path).catch((error: unknown) => (isMissingFile(error) ? undefined : ''));
    listed.push({ ...entry, state: sha256 === undefined ? 'missing' : sha256 === entry.sha256 ? 'trusted' : 'changed' });
  }
  return listed;
}
