/**
 * User configuration that approves secrets per extension: `$MEP_HOME/config.json` and the
 * project's `.mep/config.json`, both `{"secrets": {"<extension id>": ["env(\"NAME\")", …]}}`.
 * An approval in either file counts; the manifest must list the same reference too.
 */
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { readJsonFile } from '../files/json-file.ts';
import { isMissingFile } from '../files/regular-file.ts';
import { ExtensionIdText } from './extension-id.ts';
import type { ExtensionId } from './extension-id.ts';
import type { RegistryPaths } from './paths.ts';

/** The `config.json` document. */
export const MepConfig = z.looseObject({
  /** Approved secret references per extension id. */
  secrets: z.record(ExtensionIdText, z.array(z.string())).optional(),
});
/** The `config.json` document. */
export type MepConfig = z.infer<typeof MepConfig>;

async function readConfig(path: string): Promise<MepConfig> {
  let doc: unknown;
  try {
    // Its keys are the schema's and extension ids, which are never hostile keys.
    doc = await readJsonFile(path, { what: 'the configuration', maxBytes: HOST_FILE_LIMITS.smallFileBytes });
  } catch (error) {
    if (isMissingFile(error)) return {};
    throw error;
  }
  const parsed = MepConfig.safeParse(doc);
  if (!parsed.success) {
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    throw new MepError(
      LocalErrorCode.Usage,
      `The configuration ${path} is malformed (${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}): "secrets" maps plain extension ids (such as acme.crm) to lists of references such as ["env(\\"TOKEN\\")"].`,
      { data: { config: path, issues } },
    );
  }
  return parsed.data;
}

/** The secret references the user approved for `extension`, from both configuration files. */
export async function approvedSecrets(paths: RegistryPaths, extension: ExtensionId): Promise<string[]> {
  const approved = new Set<string>();
  for (const path of [paths.user.config, paths.project.config]) {
    const secrets = (await readConfig(path)).secrets ?? {};
    // Own members only: an extension named `constructor` must not read Object's.
    for (const reference of Object.hasOwn(secrets, extension) ? (secrets[extension] ?? []) : []) approved.add(reference);
  }
  return [...approved];
}
