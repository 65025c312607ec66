/**
 * The guests' copy of the engine, made once per engine build and cached beside it (and shipped
 * beside it, build/engine/shipped.ts): the engine's bytes as its build left them, already through
 * binaryen at the level chosen for V8 (build/engine/opt-flags.ts). No second optimizer run:
 * `wasm-opt -Oz` over the -O3 engine gave back almost all of what -O3 saves V8
 * (bench/wasm-callgrind: 3,091 M → 3,128 M), and a plain rewrite by another binaryen drops the
 * -O3 run's stack-IR savings (+3.8 KB). The link drops the names and producers sections
 * (link.ts). Guests are compiled, snapshotted and linked on top of it, so a guest build needs no
 * full optimizer run of its own: the snapshot only replaces the data, and a quick dead-code pass
 * (tools.ts `removeUnused`) drops what only the engine's ABI exports reached.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Engine } from '../engine/index.ts';
import { replaceFile } from './internal/replace-file.ts';

const pending = new Map<string, Promise<string>>();

/**
 * Returns the path of the guests' copy of `engine` (`engine-<hash>.guest.wasm`), written the
 * first time.
 *
 * @example
 * const path = await optimizedEngine(await ensureEngine());
 */
export function optimizedEngine(engine: Engine): Promise<string> {
  const path = engine.wasmPath.replace(/\.wasm$/, '.guest.wasm');
  let p = pending.get(path);
  if (!p) {
    p = (async () => {
      if (existsSync(path)) return path;
      replaceFile(path, readFileSync(engine.wasmPath));
      return path;
    })();
    pending.set(path, p);
    p.catch(() => pending.delete(path)); // a failed run may be retried; the caller sees the rejection
  }
  return p;
}
