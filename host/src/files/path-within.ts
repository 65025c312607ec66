/** Whether a path lies in a folder, compared as text (give real paths to compare what is on disk). */
import { sep } from 'node:path';

/**
 * True when `path` is `root` or inside it: `/a/b` is within `/a`, `/ab` is not; a root that ends
 * with the separator (`/`) holds every absolute path.
 *
 * @example
 * if (!isWithin(await realpath(file), realRoot)) throw refuse(file, 'leads out of the package');
 */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
