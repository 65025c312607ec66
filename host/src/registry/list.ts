/**
 * What `mep list` shows: per installed extension its identity, where it came from, what it
 * claims (targets, languages, IR versions) and whether its artifact still matches the lock.
 */
import { parseClaimSet } from '../protocol/index.ts';
import type { ClaimSet } from '../protocol/index.ts';
import { isMepError } from '../protocol/errors.ts';
import { discoverExtensions } from './discover.ts';
import type { DiscoveryProblem, InstalledExtension } from './discover.ts';
import { checkInstalled } from './prepare.ts';
import { untrustedState } from './trust-lock.ts';
import type { RegistryPaths, Scope } from './paths.ts';

/** The capabilities of one extension, flattened for display. */
export interface CapabilitySummary {
  types: string[];
  targets: string[];
  languages: string[];
  irVersions: string[];
}

/** One row of `mep list`. */
export interface ListedExtension {
  id: string;
  name: string;
  version: string;
  runtime: string;
  scope: Scope;
  dir: string;
  source: string | null;
  commit: string | null;
  /** From the pinned claim set; null when claims are not read yet (process installed without --probe). */
  capabilities: CapabilitySummary | null;
  /** True when the lock pins it and the artifact hashes to the pinned sha256. */
  verified: boolean;
  /** Why `verified` is false. */
  problem?: string;
  /** True when a project-local install with the same id hides this one. */
  shadowed: boolean;
  /** A project-scope process or http extension whose lock is not trusted (or changed since): it does not run until `mep trust`. */
  trust?: 'untrusted' | 'changed';
}

/** Targets, languages and IR versions of a claim set. */
export function summarizeClaims(claims: ClaimSet): CapabilitySummary {
  const caps = claims.capabilities;
  const irVersions = new Set<string>();
  for (const kind of [caps.frontend, caps.backend, caps.validator, caps.transform]) for (const v of kind?.irVersions ?? []) irVersions.add(v);
  return {
    types: [...claims.extension.types],
    targets: [...(caps.backend?.targets ?? [])],
    languages: (caps.frontend?.languages ?? []).map((l) => l.id),
    irVersions: [...irVersions].sort(),
  };
}

async function row(installed: InstalledExtension, shadowed: boolean, paths: RegistryPaths): Promise<ListedExtension> {
  let verified = true;
  let problem: string | undefined;
  try {
    await checkInstalled(installed);
  } catch (error) {
    if (!isMepError(error)) throw error;
    verified = false;
    problem = error.message;
  }
  const trust = await untrustedState(installed, paths);
  let capabilities: CapabilitySummary | null = null;
  const pinned = installed.lockEntry?.claims;
  if (pinned !== undefined) {
    try {
      capabilities = summarizeClaims(parseClaimSet(pinned));
    } catch (error) {
      problem ??= `pinned claims unreadable: ${(error as Error).message}`;
    }
  }
  return {
    id: installed.id,
    name: installed.manifest.name,
    version: installed.manifest.version,
    runtime: installed.manifest.runtime,
    scope: installed.scope,
    dir: installed.dir,
    source: installed.lockEntry?.source ?? null,
    commit: installed.lockEntry?.commit ?? null,
    capabilities,
    verified,
    ...(problem ? { problem } : {}),
    shadowed,
    ...(trust ? { trust } : {}),
  };
}

/**
 * Lists every installed extension (shadowed ones included and marked) plus unreadable package
 * directories.
 *
 * @example
 * const { extensions } = await listExtensions(registryPaths({ cwd }));
 */
export async function listExtensions(paths: RegistryPaths): Promise<{ extensions: ListedExtension[]; problems: DiscoveryProblem[] }> {
  const discovery = await discoverExtensions(paths);
  const rows: ListedExtension[] = [];
  for (const e of discovery.extensions) rows.push(await row(e, false, paths));
  for (const e of discovery.shadowed) rows.push(await row(e, true, paths));
  return { extensions: rows, problems: discovery.problems };
}
