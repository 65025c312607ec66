/**
 * Errors of a file system that has no room left for a write: the disk (`ENOSPC`), the user's
 * quota (`EDQUOT`), the largest file the process may write (`EFBIG`, `ulimit -f`). Each writer
 * that stages something (the output, an install's scratch) turns them into its own typed error
 * naming the folder and what to do. No I/O.
 */

/** The errno of `error` when it says the file system is out of room, else undefined. */
export function noSpaceErrno(error: unknown): 'ENOSPC' | 'EDQUOT' | 'EFBIG' | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' ? code : undefined;
}

/** What ran out, in words, for `code`. */
export function noSpaceWords(code: 'ENOSPC' | 'EDQUOT' | 'EFBIG'): string {
  if (code === 'EDQUOT') return 'your disk quota there is used up';
  if (code === 'EFBIG') return 'a file passed the largest file this process may write (ulimit -f)';
  return 'the file system holding it has no space left';
}
