/**
 * The engine after `wasm-opt -Oz`, made once per engine build and cached beside it. Guests are
 * compiled, snapshotted and linked on top of it, so a guest build needs no full optimizer run of
 * its own: the snapshot only replaces the data, which -Oz would leave as it is, and a quick
 * dead-code pass (tools.ts `removeUnused`) drops what only the engine's ABI exports reached.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Engine } from '../engine/index.ts';
import { optimize } from './tools.ts';
import { replaceFile } from './internal/replace-file.ts';

const pending = new Map<string, Promise<string>>();

/**
 * Returns the path of the optimized copy of `engine` (`engine-<hash>.Oz.wasm`), running
 * wasm-opt the first time (about 2 s with Debian's binaryen). Throws `ERR_BUILD` if wasm-opt fails.
 *
 * @example
 * const path = await optimizedEngine(await ensureEngine());
 */
export function optimizedEngine(engine: Engine): Promise<string> {
  const path = engine.wasmPath.replace(/\.wasm$/, '.Oz.wasm');
  let p = pending.get(path);
  if (!p) {
    p = (async () => {
      if (existsSync(path)) return path;
      const tmpRoot = join(dirname(path), 'tmp');
      mkdirSync(tmpRoot, { recursive: true });
      const wasm = await optimize(readFileSync(engine.wasmPath), tmpRoot);
      replaceFile(path, wasm);
      return path;
    })();
    pending.set(path, p);
    p.catch(() => pending.delete(path)); // a failed run may be retried; the caller sees the rejection
  }
  return p;
}
