/**
 * User configuration that approves secrets per extension: `$MEP_HOME/config.json` and the
 * project's `.mep/config.json`, both `{"secrets": {"<extension id>": ["env(\"NAME\")", …]}}`.
 * The user's file always counts; the project's only once the user trusted its exact content
 * (trust.ts, approvals.ts). The manifest must list the same reference too.
 */
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { createHash } from 'node:crypto';
import { parseJsonFile } from '../files/json-file.ts';
import { isMissingFile, readRegularFile } from '../files/regular-file.ts';
import { ExtensionIdText } from './extension-id.ts';
import type { ExtensionId } from './extension-id.ts';

/** The `config.json` document. */
export const MepConfig = z.looseObject({
  /** Approved secret references per extension id. */
  secrets: z.record(ExtensionIdText, z.array(z.string())).optional(),
});
/** The `config.json` document. */
export type MepConfig = z.infer<typeof MepConfig>;

/** One configuration file as read: its bytes' sha256 (what a trust records) and what they say. */
export interface ConfigFile {
  path: string;
  sha256: string;
  config: MepConfig;
}

/** Decodes the text of the configuration file `path`, or throws ERR_USAGE naming the file and the issue. */
function decodeConfig(path: string, text: string): MepConfig {
  // Its keys are the schema's and extension ids, which are never hostile keys.
  const doc = parseJsonFile(path, text, { what: 'the configuration' });
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

/**
 * Reads the configuration file `path` once: the sha256 is of the very bytes decoded, so what is
 * trusted is what counts. Undefined when there is no such file.
 */
export async function readConfigFile(path: string): Promise<ConfigFile | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(path, { what: 'the configuration', maxBytes: HOST_FILE_LIMITS.smallFileBytes });
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), config: decodeConfig(path, bytes.toString('utf8')) };
}

/** The references `config` approves for `extension` (own members only: an id named `constructor` reads no Object member). */
export function approvedIn(config: MepConfig | undefined, extension: ExtensionId): string[] {
  const secrets = config?.secrets ?? {};
  return Object.hasOwn(secrets, extension) ? [...(secrets[extension] ?? [])] : [];
}
