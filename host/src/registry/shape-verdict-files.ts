/**
 * The files of kept shape-walk verdicts (shape-verdicts.ts says what they mean and where the `mep`
 * command keeps them): one per module, named by the sha256 of its bytes, trusted only as a
 * regular file of the user's that no one else can write, holding exactly the text written here.
 * Apart from shape-verdicts.ts (which finds `$MEP_HOME`), so the wasm worker, which prepares a
 * module from its file (transport/wasm/node/file-module.ts), reads them without the registry.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isOwnAndClosed } from '../files/own-file.ts';
import { openRegularFile } from '../files/regular-file.ts';
import type { ShapeVerdicts } from '../transport/wasm/module.ts';

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** The most verdict files kept: past it the oldest go (one file is about 100 bytes). */
const MAX_ENTRIES = 1000;

/** The whole text of the verdict for `sha256` under `rules`. */
const verdictText = (sha256: string, rules: string): string => `mep wasm module shape: sha256 ${sha256} passed, ${rules}\n`;

/** Options of {@link createShapeVerdicts}. */
export interface ShapeVerdictsOptions {
  /** The most verdicts kept; the oldest beyond it are removed when one is added. Default 1,000. */
  maxEntries?: number;
}

/**
 * Verdicts kept as files in `dir` (made, mode 0700, on the first verdict). Never rejects: a
 * verdict that cannot be read is none, one that cannot be written is not kept.
 *
 * @example
 * const module = await compileExtensionModule(bytes, { name, sha256, shapeVerdicts: createShapeVerdicts(shapeVerdictsDirectory()) });
 */
export function createShapeVerdicts(dir: string, options: ShapeVerdictsOptions = {}): ShapeVerdicts {
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  return {
    async has(sha256, rules) {
      if (!SHA256_HEX.test(sha256)) return false;
      const expected = verdictText(sha256, rules);
      try {
        const path = join(dir, sha256);
        const { handle, info } = await openRegularFile(path, { what: 'a wasm shape verdict', maxBytes: expected.length, noFollow: true });
        try {
          if (!isOwnAndClosed(info)) return false;
          const buffer = Buffer.alloc(expected.length + 1);
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
          return bytesRead === expected.length && buffer.toString('utf8', 0, bytesRead) === expected;
        } finally {
          await handle.close();
        }
      } catch {
        return false;
      }
    },
    async add(sha256, rules) {
      if (!SHA256_HEX.test(sha256)) return;
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        // Written whole under a fresh name, then renamed over: a reader sees the old file or the new one.
        const temporary = join(dir, `.${sha256}.${randomBytes(6).toString('hex')}.tmp`);
        await writeFile(temporary, verdictText(sha256, rules), { flag: 'wx', mode: 0o600 });
        await rename(temporary, join(dir, sha256)).catch(async () => rm(temporary, { force: true }));
        await prune(dir, maxEntries);
      } catch {
        // Not kept: the next process walks the module again.
      }
    },
  };
}

/** Removes the oldest entries of `dir` beyond `maxEntries`. */
async function prune(dir: string, maxEntries: number): Promise<void> {
  const names = await readdir(dir);
  if (names.length <= maxEntries) return;
  const aged = await Promise.all(names.map(async (name) => ({ name, mtime: (await lstat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
  aged.sort((a, b) => a.mtime - b.mtime);
  await Promise.all(aged.slice(0, names.length - maxEntries).map(({ name }) => rm(join(dir, name), { force: true, recursive: true })));
}
