/**
 * The guests' copy of the engine, made once per engine build and cached beside it (and shipped
 * beside it, build/engine/shipped.ts): the engine as its build left it (already through binaryen
 * at the level chosen for V8, build/engine/opt-flags.ts), read and written once more by binaryen
 * with its locals coalesced (tools.ts `coalesceLocals`). Every guest's dead-code pass rewrites the
 * engine through binaryen anyway (tools.ts `removeUnused`), which gives up the -O3 run's stack-IR
 * savings (+3.8 KB) and reads its stack code back with scratch locals: JS_CallInternal had 167
 * locals instead of 59, and V8's baseline compiler (Liftoff, lazy: a fresh process compiles it in
 * its first call) keeps the state of every local at every branch target, 4.8 MB of compiler memory
 * for that function instead of 2.9 MB. A module binaryen wrote reads back without new locals, so
 * coalescing once here carries through every guest's pass. No full optimizer run: `wasm-opt -Oz`
 * over the -O3 engine gave back almost all of what -O3 saves V8 (bench/wasm-callgrind: 3,091 M →
 * 3,128 M). The link drops the names and producers sections (link.ts). Guests are compiled,
 * snapshotted and linked on top of it: the snapshot only replaces the data.
 */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Engine } from '../engine/index.ts';
import { replaceFile } from './internal/replace-file.ts';
import { coalesceLocals } from './tools.ts';

const pending = new Map<string, Promise<string>>();

/**
 * Returns the path of the guests' copy of `engine` (`engine-<hash>.guest.wasm`), written the
 * first time. A copy byte for byte equal to the engine is what this pipeline wrote before its
 * locals were coalesced: it is written again.
 *
 * @example
 * const path = await optimizedEngine(await ensureEngine());
 */
export function optimizedEngine(engine: Engine): Promise<string> {
  const path = engine.wasmPath.replace(/\.wasm$/, '.guest.wasm');
  let p = pending.get(path);
  if (!p) {
    p = (async () => {
      const bytes = readFileSync(engine.wasmPath);
      if (existsSync(path) && !readFileSync(path).equals(bytes)) return path;
      replaceFile(path, await coalesceLocals(bytes, tmpdir()));
      return path;
    })();
    pending.set(path, p);
    p.catch(() => pending.delete(path)); // a failed run may be retried; the caller sees the rejection
  }
  return p;
}
