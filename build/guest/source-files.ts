/**
 * What a build reads of a project is source: regular files of a bounded size. A project (a cloned
 * repository, an unpacked archive) can hold a link to a device or a kernel file (`src/a.ts` →
 * `/dev/zero`, `/proc/self/environ`; git checks links out); esbuild and TypeScript open whatever a
 * path names, so such a link made esbuild read without end (2.7 GB in 18 s, past `mep`'s SIGTERM)
 * or would bundle the builder's environment into the guest.
 *
 * - esbuild resolves a link to its target before loading it, so {@link systemFileGuard} refuses
 *   targets under `/dev`, `/proc` and `/sys` by a path filter that esbuild matches itself: files
 *   elsewhere never reach the hook (a hook called for every file costs a watch rebuild about twice
 *   its time: docs/performance-log.md, redteam13).
 * - The type check reads every file it opens through {@link readSourceText}: a regular file (a
 *   FIFO, socket or device anywhere is refused) of at most {@link MAX_SOURCE_FILE_BYTES}.
 * - `mep` stopped by a signal stops esbuild's service with it (cli/signals.ts, bundle.ts's
 *   `stopBundler`).
 */
import type * as esbuild from 'esbuild';
import { isMissingFile, readRegularFileSync } from '../../host/src/files/regular-file.ts';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** The largest single file the type check reads (a generated source of tens of MB still fits). */
export const MAX_SOURCE_FILE_BYTES = 64 * 1024 * 1024;

/** Paths of the kernel's trees: devices, processes, the system's objects (never a source). */
const SYSTEM_TREES = /^\/(?:dev|proc|sys)(?:\/|$)/;

const refusal = (path: string, what: string): MepError =>
  new MepError(LocalErrorCode.Build, `${path} is ${what}, not a source file: a build reads only regular files. Remove the link or the file from the project (or the import that names it).`, {
    data: { reason: 'not-a-source-file', path },
  });

/** The esbuild plugin that refuses a module whose (link-resolved) path is in a system tree. */
export const systemFileGuard: esbuild.Plugin = {
  name: 'mep-system-files',
  setup(build) {
    build.onLoad({ filter: SYSTEM_TREES }, (args) => ({ errors: [{ text: refusal(args.path, 'in a system tree (/dev, /proc, /sys)').message }] }));
  },
};

/** The text of a file as TypeScript's own reader decodes it (a byte order mark chooses UTF-16 or is dropped). */
function decode(bytes: Buffer): string {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return bytes.toString('utf16le', 2);
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    const swapped = Buffer.from(bytes.subarray(2, 2 + ((bytes.length - 2) & ~1))); // swap16 needs whole units
    return swapped.swap16().toString('utf16le');
  }
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.toString('utf8', 3);
  return bytes.toString('utf8');
}

/**
 * The type check's `readFile`: undefined for a path that is not there (as TypeScript's own), the
 * text of a regular file, and the shared reader's typed refusal (ERR_BUILD naming the kind of file,
 * ERR_LIMIT past the bound) for anything else, checked on the opened descriptor too.
 */
export function readSourceText(path: string): string | undefined {
  try {
    return decode(readRegularFileSync(path, { what: 'a source file', maxBytes: MAX_SOURCE_FILE_BYTES, code: LocalErrorCode.Build, raise: 'split the file' }));
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}
