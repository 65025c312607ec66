/**
 * Verdicts of the wasm module shape walk (transport/wasm/module-shape.ts), kept between `mep`
 * processes in the user's own `$MEP_HOME/cache/wasm-shape/`: one file per module, named by the
 * sha256 of its bytes, saying that exactly those bytes passed the walk and compiled under the
 * rules of the day. The walk costs about 0.1 s of CPU for a 7.6 MB guest in a fresh process (V8
 * has not optimised it yet), on every `mep compile` of a small project.
 *
 * A security decision (README, security model): a verdict is trusted only for the bytes whose
 * hash names it (the hash is computed in this process from the bytes that are compiled), only
 * under the same rules (walk revision and bounds), and only from a regular file (not a link) of
 * the user's, writable by no one else, whose whole text is the one this module writes for that
 * hash. The folder is the user's own, as `config.json` and the installed extensions beside it
 * are: whoever can write there can already run code as the user; a project's `.mep/` is never
 * read for verdicts. Node edge.
 */
import { join } from 'node:path';
import type { ShapeVerdicts } from '../transport/wasm/module.ts';
import { createShapeVerdicts } from './shape-verdict-files.ts';
import { registryPaths, type RegistryLocation } from './paths.ts';

export { createShapeVerdicts, type ShapeVerdictsOptions } from './shape-verdict-files.ts';

/** Where the `mep` command keeps verdicts: `$MEP_HOME/cache/wasm-shape`. */
export function shapeVerdictsDirectory(location: RegistryLocation = { cwd: process.cwd() }): string {
  return join(registryPaths(location).user.root, 'cache', 'wasm-shape');
}

let kept = false;

/**
 * Whether openTransport's wasm launches (registry/launch.ts) keep shape verdicts in
 * {@link shapeVerdictsDirectory}: the `mep` command turns it on; a library host opts in likewise.
 */
export function keepShapeVerdicts(on: boolean): void {
  kept = on;
}

/** Verdicts being written: a launch does not wait for them (transport/wasm/module.ts), the command does before it returns. */
const writing = new Set<Promise<void>>();

/** Resolves once every verdict being written is on disk (or given up). */
export async function shapeVerdictsWritten(): Promise<void> {
  while (writing.size > 0) await Promise.all(writing);
}

/** The store launches use, or undefined when verdicts are not kept (the default). */
export function keptShapeVerdicts(): ShapeVerdicts | undefined {
  if (!kept) return undefined;
  const store = createShapeVerdicts(shapeVerdictsDirectory());
  return {
    has: store.has,
    add(sha256, rules) {
      const written: Promise<void> = store.add(sha256, rules).catch(() => undefined).finally(() => writing.delete(written));
      writing.add(written);
      return written;
    },
  };
}
