/**
 * The trees of the kill tests (test support): the artifacts a run publishes, the old output it
 * replaces, and the two trees (old and new) that are the only acceptable outcomes.
 */
import { link, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';

/** A tree as relative paths: directories (with a trailing "/") and files with their content. */
export type Tree = Map<string, string>;

/** The artifacts of a run of `count` files, in nested directories. */
export function plannedArtifacts(count: number): { path: string; content: string; binary: boolean }[] {
  return Array.from({ length: count }, (_, i) => ({ path: `gen/${i % 50}/${i % 7}/f${i}.txt`, content: `new ${i}`, binary: false }));
}

/**
 * The old output for a run of `count` files: every other artifact path with old content, and
 * files no artifact touches (top level and in a directory of their own).
 */
export function oldTree(count: number): Tree {
  const tree: Tree = new Map();
  plannedArtifacts(count).forEach((a, i) => i % 2 === 0 && tree.set(a.path, `old ${a.path}`));
  for (let i = 0; i < Math.max(10, count / 10); i++) tree.set(i % 2 === 0 ? `mine-${i}.md` : `notes/${i % 5}/n${i}.md`, `mine ${i}`);
  return withDirectories(tree);
}

/** The tree a complete publication of `count` files over {@link oldTree} leaves. */
export function newTree(count: number): Tree {
  const tree = new Map(oldTree(count));
  for (const a of plannedArtifacts(count)) tree.set(a.path, a.content);
  return withDirectories(tree);
}

function withDirectories(tree: Tree): Tree {
  for (const path of [...tree.keys()]) {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) if (slash < path.length - 1) tree.set(`${path.slice(0, slash)}/`, '');
  }
  return tree;
}

/** Digest of a tree: its sorted paths and contents. */
export function digestOf(tree: Tree): string {
  const hash = createHash('sha256');
  for (const path of [...tree.keys()].sort()) hash.update(`${path}\0${tree.get(path)}\0`);
  return hash.digest('hex');
}

/** The tree under `dir` as it is on disk (empty directories included), or undefined when `dir` is missing. */
export async function readTree(dir: string): Promise<Tree | undefined> {
  const tree: Tree = new Map();
  try {
    await readdir(dir);
  } catch {
    return undefined;
  }
  const pending = [''];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    for (const entry of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = `${rel}${entry.name}`;
      if (entry.isDirectory()) {
        tree.set(`${path}/`, '');
        pending.push(`${path}/`);
      } else tree.set(path, await readFile(join(dir, path), 'utf8'));
    }
  }
  return tree;
}

/**
 * Writes `tree` under `dir`. With `template` (a directory already holding the tree), files are
 * hard links to it: a big old tree costs links, not writes, for each run.
 */
export async function writeTree(dir: string, tree: Tree, template?: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, content] of tree) {
    if (path.endsWith('/')) {
      await mkdir(join(dir, path), { recursive: true });
      continue;
    }
    await mkdir(dirname(join(dir, path)), { recursive: true });
    if (template) await link(join(template, path), join(dir, path));
    else await writeFile(join(dir, path), content);
  }
}
