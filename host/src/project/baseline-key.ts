/**
 * The key that signs a project's compile baseline (compile-baseline.ts): 32 random bytes kept in
 * the user's mep home (`$MEP_HOME`, default `~/.mep`) as `compile-baseline.key`, readable by the
 * user only, made on first use. A baseline is trusted only with a signature of this key over the
 * frontend, the project's real path and the baseline itself, so one that this user's `mep` did
 * not write for this very project — committed to a repository, copied from another project, edited
 * by hand — is never sent to a frontend, which would take its IR as the IR of unchanged modules.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readTextFile } from '../files/regular-file.ts';
import { registryPaths } from '../registry/paths.ts';

/** The key file in the user's mep home. */
function keyPath(): string {
  // The user's home as every command finds it (a relative MEP_HOME is taken from the working directory).
  return join(registryPaths({ cwd: process.cwd() }).user.root, 'compile-baseline.key');
}

/** The user's key (made when there is none), or undefined when it can be neither read nor made. */
async function baselineKey(): Promise<Buffer | undefined> {
  const path = keyPath();
  const read = async (): Promise<Buffer | undefined> => {
    const text = (await readTextFile(path, { what: 'the compile baseline key', maxBytes: 1024, noFollow: true })).trim();
    return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  };
  try {
    return await read();
  } catch {
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      // 'wx': never over a file (or a link) that appeared meanwhile; then that one is read.
      await writeFile(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    } catch {
      // Made by a concurrent run, or not writable: read what is there, if anything.
    }
    return read().catch(() => undefined);
  }
}

/**
 * The signature of `baselineJson` (the text, or its UTF-8 bytes as read back) kept for the
 * frontend `key` in the project at `projectDir`, or undefined when the user has no usable key
 * (then no baseline is kept or trusted).
 */
export async function signBaseline(projectDir: string, key: string, baselineJson: string | Uint8Array): Promise<string | undefined> {
  const secret = await baselineKey();
  if (secret === undefined) return undefined;
  const project = await realpath(projectDir).catch(() => projectDir);
  return createHmac('sha256', secret).update(`${key}\n${project}\n`).update(baselineJson).digest('hex');
}
