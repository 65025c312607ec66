/**
 * `extension.json`, the package manifest: identity, runtime, the artifact's path and the
 * permissions the package asks for. It never declares capabilities: the claim set is read from
 * the artifact (MEP 0.1, Capability claims: "no manifest declares a capability by hand").
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { toDecodeIssues } from '../protocol/decode.ts';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
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

/** The `extension.json` document. */
export const ExtensionManifest = z.looseObject({
  id: ExtensionId,
  name: z.string().min(1),
  version: z.string().min(1),
  runtime: z.enum(['wasm', 'process']),
  /** The artifact's path in the package; for a process, the stem of per-platform executables. */
  entry: PackagePath,
  /**
   * Files and directories shipped besides `extension.json` and the entry (data the artifact
   * reads at run time), relative to the package. Install and `mep pack` copy nothing else.
   */
  files: z.array(PackagePath).optional(),
  args: z.array(z.string()).optional(),
  /** The process environment: exactly these entries, nothing inherited. */
  env: z.record(z.string(), z.string()).optional(),
  permissions: ManifestPermissions.optional(),
  /**
   * Resource limits this extension needs beyond the defaults (256 MiB memory, 30 s per call,
   * 64 MiB per message); `mep --max-memory`, `--call-timeout` and `--max-message` win over them.
   */
  limits: ExtensionLimits.optional(),
});
/** The `extension.json` document. */
export type ExtensionManifest = z.infer<typeof ExtensionManifest>;

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

/** Reads and validates `<dir>/extension.json`. */
export async function readManifest(dir: string): Promise<ExtensionManifest> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new MepError(LocalErrorCode.Registry, `No ${MANIFEST_FILE} in ${dir} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); a package is a directory with ${MANIFEST_FILE} and its artifact.`, {
      cause: error,
      data: { manifest: path },
    });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new MepError(LocalErrorCode.Registry, `${path} is not valid JSON (${(error as Error).message}).`, { data: { manifest: path } });
  }
  return parseManifest(doc, path);
}
