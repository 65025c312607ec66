/**
 * The host's side of incremental compiles (MEP 0.1, `CompileRequest.baseline`): what the last
 * compile of a project returned per module, kept in `.mep/compile-baseline.json` in the project
 * and sent back as the baseline of the next compile — only to the frontend that produced it, and
 * only when it advertises `incremental: true`. The host never computes or compares digests: it
 * keeps the IR of modules that compiled or were unchanged, and, for a module that failed or was
 * blocked, the entry it trusted before (so the frontend still has that module's interface).
 * Written atomically; a file that is unreadable, too large, malformed or another frontend's is
 * ignored (the compile is then a full one), never trusted in part. A `.mep` that is not a directory
 * of the project's own (a link, as a cloned repository may hold, pointing anywhere) is neither
 * read nor written through: the compile is a full one and keeps nothing. A baseline is trusted only
 * with the signature of the user's key over it, its frontend and the project (baseline-key.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readRegularFile } from '../files/regular-file.ts';
import { parseJson } from '../protocol/json-parse.ts';
import type { BaselineModule, CompileBaseline, CompileResult, InitializeResult } from '../protocol/index.ts';
import { CompileBaseline as CompileBaselineSchema } from '../protocol/compile-params.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { writeFileAtomic } from '../registry/atomic-write.ts';
import { signBaseline } from './baseline-key.ts';

/** The file's format tag; another value is ignored. */
export const COMPILE_BASELINE_FORMAT = 'mep-compile-baseline/1';

/** Where a project's baseline is kept. */
export function compileBaselinePath(projectDir: string): string {
  return join(projectDir, '.mep', 'compile-baseline.json');
}

/** The frontend a baseline belongs to: its id and version (another build of it may digest differently). */
export function frontendKey(initialize: InitializeResult | undefined): string | undefined {
  const info = initialize?.extension as { id?: unknown; name?: unknown; version?: unknown } | undefined;
  const id = typeof info?.id === 'string' ? info.id : typeof info?.name === 'string' ? info.name : undefined;
  return id === undefined ? undefined : `${id}@${typeof info?.version === 'string' ? info.version : ''}`;
}

/** True when the frontend of `initialize` accepts a baseline. */
export function acceptsBaseline(initialize: InitializeResult | undefined): boolean {
  return initialize?.capabilities.frontend?.incremental === true;
}

/**
 * The baseline after `result`, given the one sent with it (`previous`), or undefined when the
 * frontend returned no module results.
 *
 * @example
 * baseline = nextBaseline(baseline, result) ?? baseline;
 */
export function nextBaseline(previous: CompileBaseline | undefined, result: CompileResult): CompileBaseline | undefined {
  if (!result.moduleResults) return undefined;
  // Entries of another context are of no use to a frontend that now digests differently.
  const sameContext = previous !== undefined && previous.contextDigest !== undefined && previous.contextDigest === result.contextDigest;
  const before = new Map((sameContext ? previous!.modules : []).map((m) => [m.name, m]));
  const modules: BaselineModule[] = [];
  for (const r of result.moduleResults) {
    const known = before.get(r.name);
    const entry = (ir: unknown): BaselineModule => ({
      name: r.name,
      ...(r.uri === undefined ? {} : { uri: r.uri }),
      ...(r.sourceDigest === undefined ? {} : { sourceDigest: r.sourceDigest }),
      ...(r.interfaceDigest === undefined ? {} : { interfaceDigest: r.interfaceDigest }),
      ...(r.dependsOn === undefined ? {} : { dependsOn: r.dependsOn }),
      ir,
    });
    if (r.status === 'compiled' && r.ir !== undefined) modules.push(entry(r.ir));
    else if (r.status === 'unchanged' && known?.ir !== undefined) modules.push(entry(known.ir));
    else if ((r.status === 'failed' || r.status === 'blocked') && known) modules.push(known);
  }
  return { modules, ...(result.contextDigest === undefined ? {} : { contextDigest: result.contextDigest }) };
}

/** True unless the project's `.mep` exists as something other than a real directory (a link to elsewhere). */
async function ownStateFolder(projectDir: string): Promise<boolean> {
  const info = await lstat(dirname(compileBaselinePath(projectDir))).catch(() => undefined);
  return info === undefined || info.isDirectory();
}

/**
 * The file mep writes for the frontend `key` around the baseline's text: what comes before the
 * signature, and between it and the baseline. The signature is checked on the baseline's bytes as
 * they are in the file, before any of it is parsed.
 */
const framing = (key: string, signature = ''): [string, string] => [`{"format":${JSON.stringify(COMPILE_BASELINE_FORMAT)},"frontend":${JSON.stringify(key)},"signature":"${signature}`, '","baseline":'];

/** The 64 hexadecimal digits of an HMAC-SHA256. */
const SIGNATURE_DIGITS = 64;

/**
 * Reads the project's baseline for the frontend `key`, or undefined (none, another's, unusable).
 * Only the bytes of a file this user's mep signed for this project and frontend are parsed: a
 * planted one (a cloned repository's `.mep/`) costs its read and one HMAC, never a parse (120 MiB
 * of empty objects took `mep compile` to 4 GB; 400 KB nested 200,000 deep overflowed the stack).
 */
export async function readCompileBaseline(projectDir: string, key: string): Promise<CompileBaseline | undefined> {
  if (!(await ownStateFolder(projectDir))) return undefined;
  let bytes: Buffer;
  try {
    bytes = await readRegularFile(compileBaselinePath(projectDir), { what: 'the compile baseline', maxBytes: HOST_FILE_LIMITS.compileBaselineBytes, noFollow: true });
  } catch {
    // Missing, too large, a link, not a regular file: a full compile, and the next write replaces it.
    return undefined;
  }
  const [before, between] = framing(key).map((text) => Buffer.from(text)) as [Buffer, Buffer];
  const at = before.length + SIGNATURE_DIGITS + between.length;
  const framed =
    bytes.length > at &&
    bytes.subarray(0, before.length).equals(before) &&
    bytes.subarray(before.length + SIGNATURE_DIGITS, at).equals(between) &&
    bytes[bytes.length - 1] === 0x7d; // the closing brace
  if (!framed) return undefined;
  const claimed = bytes.subarray(before.length, before.length + SIGNATURE_DIGITS);
  const text = bytes.subarray(at, bytes.length - 1);
  const signature = await signBaseline(projectDir, key, text);
  if (signature === undefined || !timingSafeEqual(claimed, Buffer.from(signature))) return undefined;
  try {
    const parsed = CompileBaselineSchema.safeParse(parseJson(text.toString('utf8'), { duplicates: 'signed' }));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Signed, so written by this user's mep: only a hostile key in its IR is refused here, as ever.
    return undefined;
  }
}

/** Keeps `baseline` as the project's, for the frontend `key` (atomically: a reader sees the old or the new file). */
export async function writeCompileBaseline(projectDir: string, key: string, baseline: CompileBaseline): Promise<void> {
  if (!(await ownStateFolder(projectDir))) return;
  const text = JSON.stringify(baseline);
  const signature = await signBaseline(projectDir, key, text);
  if (signature === undefined) return;
  const [before, between] = framing(key, signature);
  await writeFileAtomic(compileBaselinePath(projectDir), `${before}${between}${text}}`);
}
