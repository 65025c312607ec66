/** Test helper: the inotify watches this process holds (Linux), for the tests of `--watch`. */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The inotify watches this process holds (Linux), over all its inotify descriptors. */
export function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) continue;
      watches += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify ')).length;
    } catch {
      // Closed meanwhile.
    }
  }
  return watches;
}
