/**
 * Folders watched one by one, never recursively: what `mep compile --watch` and `mep build --watch` see. Node.js's
 * recursive `fs.watch` on Linux reads the whole tree synchronously on the event loop and adds an
 * inotify watch for every file (20,000 files: 20,203 watches and 0.8 s with nothing else
 * running; past the user's `max_user_watches` it stops seeing anything, and every other program
 * of the user's with it). Here the caller names the folders (the bounded walk of the source
 * tree: no link, no dot-directory, no special file), at most `max` are watched, and a folder's
 * own events tell of its files and of new or removed subfolders.
 */
import { watch, type FSWatcher } from 'node:fs';

/** A set of watched folders; see the file's comment. */
export interface FolderWatch {
  /**
   * Watches `folders` (the first `max` of them), and no longer any folder not listed. Returns how
   * many were left out for the bound.
   */
  set(folders: readonly string[]): number;
  /** Whether `path` is a watched folder. */
  has(path: string): boolean;
  /** How many folders are watched. */
  readonly size: number;
  close(): void;
}

/**
 * A {@link FolderWatch} that calls `onChange(folder, name)` for every event in a watched folder
 * (`name` null when the platform does not say), and `onGone(folder)` when a watched folder's
 * watcher fails (the folder was removed or renamed).
 */
export function createFolderWatch(max: number, onChange: (folder: string, name: string | null) => void, onGone: (folder: string) => void): FolderWatch {
  const watchers = new Map<string, FSWatcher>();
  const drop = (folder: string): void => {
    watchers.get(folder)?.close();
    watchers.delete(folder);
  };
  return {
    set(folders) {
      const wanted = new Set<string>();
      for (const folder of folders) {
        if (wanted.size >= max) break;
        wanted.add(folder);
      }
      for (const folder of [...watchers.keys()]) if (!wanted.has(folder)) drop(folder);
      for (const folder of wanted) {
        if (watchers.has(folder)) continue;
        try {
          const watcher = watch(folder, { persistent: true }, (_event, name) => onChange(folder, name === null ? null : name.toString()));
          watcher.on('error', () => {
            drop(folder);
            onGone(folder);
          });
          watchers.set(folder, watcher);
        } catch {
          // Gone already (a branch switch): the next walk of the tree no longer lists it.
        }
      }
      return new Set(folders).size - wanted.size;
    },
    has: (path) => watchers.has(path),
    get size() {
      return watchers.size;
    },
    close() {
      for (const folder of [...watchers.keys()]) drop(folder);
    },
  };
}
