/**
 * The snapshot of an initialized guest, taken in this Node process the way wizer takes one: a
 * fresh engine instance whose host imports all trap evaluates the blob through `mep_guest_init`,
 * and its linear memory becomes the guest module's initial memory (see link.ts). The engine's
 * only mutable global, the stack pointer, is back at its initial value when the call returns, so
 * memory is the whole state. The dead stack below it is zeroed so that it costs nothing.
 * `snapshot: 'wizer'` takes the same snapshot with wizer itself (wizer-snapshot.ts).
 */
import { isMepError } from '../../host/src/protocol/errors.ts';
import { toolFailure } from './diagnostics.ts';
import type { EngineLayout, MemoryImage } from './link.ts';

/** Outcome of {@link snapshotGuest}: the image, or the message of a failed initialization. */
export type SnapshotResult = { ok: true; image: MemoryImage } | { ok: false; message: string };

type Fn = (...args: number[]) => number;

function trappingImports(module: WebAssembly.Module): WebAssembly.Imports {
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const i of WebAssembly.Module.imports(module)) {
    if (i.kind !== 'function') continue;
    (imports[i.module] ??= {})[i.name] = () => {
      // An initializing guest must not reach the host (glue/engine.h): an engine bug, not user code.
      throw toolFailure('guest snapshot', `the engine called the host import ${i.module}.${i.name} while initializing`);
    };
  }
  return imports;
}

/**
 * Initializes a fresh instance of `engine` with `blob` (see bytecode.ts) and returns its memory.
 * A JS exception or trap during initialization comes back as `{ ok: false, message }`.
 *
 * @example
 * const r = await snapshotGuest(engineModule, engineLayout(engineBytes), blob);
 */
export async function snapshotGuest(engine: WebAssembly.Module, layout: EngineLayout, blob: Uint8Array): Promise<SnapshotResult> {
  const instance = await WebAssembly.instantiate(engine, trappingImports(engine));
  const x = instance.exports as Record<string, Fn>;
  const memory = instance.exports.memory as WebAssembly.Memory;
  let err: number;
  try {
    const ptr = x.cabi_realloc!(0, 0, 1, Math.max(blob.length, 1)) >>> 0;
    new Uint8Array(memory.buffer).set(blob, ptr); // mep_guest_init zeroes and frees it
    err = x.mep_guest_init!(ptr, blob.length) >>> 0;
  } catch (e) {
    if (isMepError(e)) throw e;
    return { ok: false, message: `the module trapped while initializing: ${e instanceof Error ? e.message : String(e)}` };
  }
  const bytes = new Uint8Array(memory.buffer);
  if (err !== 0) {
    const end = bytes.indexOf(0, err);
    return { ok: false, message: new TextDecoder().decode(bytes.subarray(err, end < 0 ? err : end)) };
  }
  bytes.fill(0, 0, layout.stackTop);
  return { ok: true, image: { memory: bytes } };
}
