/**
 * The secret references the user approved for one extension: everything `$MEP_HOME/config.json`
 * approves, and what the project's `.mep/config.json` approves only while the user trusts that
 * file's exact content (trust.ts). What an untrusted project approves is kept apart, so a refusal
 * can say which file approved it and how to trust it.
 */
import { approvedIn, readConfigFile } from './config.ts';
import type { ExtensionId } from './extension-id.ts';
import type { RegistryPaths } from './paths.ts';
import { configTrust } from './trust.ts';

/** The project's approvals that do not count (yet, or since its config changed). */
export interface UntrustedApprovals {
  /** The project's config file (absolute). */
  config: string;
  /** What it approves for the extension (and the user's file does not). */
  references: string[];
  /** Never trusted, or edited since it was. */
  reason: 'untrusted' | 'changed';
}

/** Approvals by where they come from. */
export interface SecretApprovals {
  /** Every approval that counts: the user's and a trusted project's. */
  approved: string[];
  /** Those only a trusted project approves (the user's file does not): a `file("…")` among them resolves only inside the project. */
  projectOnly: string[];
  /** Those only the project approves, which does not count. */
  untrusted?: UntrustedApprovals;
}

/** Where `extension`'s secret approvals come from: the user's configuration and the project's, with its trust. */
export async function secretApprovals(paths: RegistryPaths, extension: ExtensionId): Promise<SecretApprovals> {
  const user = [...new Set(approvedIn((await readConfigFile(paths.user.config))?.config, extension))];
  const project = await readConfigFile(paths.project.config);
  const fromProject = [...new Set(approvedIn(project?.config, extension).filter((reference) => !user.includes(reference)))];
  // The trust record is read only when the project approves something the user does not.
  if (!project || fromProject.length === 0) return { approved: user, projectOnly: [] };
  const trust = await configTrust(paths, project);
  if (trust === 'user') return { approved: [...user, ...fromProject], projectOnly: [] };
  if (trust === 'trusted') return { approved: [...user, ...fromProject], projectOnly: fromProject };
  return { approved: user, projectOnly: [], untrusted: { config: project.path, references: fromProject, reason: trust } };
}

/** The secret references that count for `extension`: the user's approvals and a trusted project's. */
export async function approvedSecrets(paths: RegistryPaths, extension: ExtensionId): Promise<string[]> {
  return (await secretApprovals(paths, extension)).approved;
}
