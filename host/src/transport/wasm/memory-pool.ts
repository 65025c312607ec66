/**
 * Recycled guest linear memories, one pool per thread (this module's state is per isolate: each
 * worker thread has its own). Every first touch of a fresh wasm page is a page fault (11–36 µs on
 * the VMs this runtime is measured on; a QuickJS guest's snapshot touches 106–2,359 pages of
 * 4 KiB at instantiation), so a memory whose pages are already resident makes the next instance
 * of the same limits cheaper, the way wasmtime's pooling allocator keeps linear memories resident.
 *
 * A memory goes back only from a clean close (engine.ts decides: the instance closed, no call
 * running, none trapped, timed out or was killed), only at its initial size (never grown), and
 * only while the pool is under {@link MEMORY_POOL_LIMITS}; it is zeroed entirely before it goes
 * back, so nothing one session wrote (possibly another extension's) is visible to the next. The
 * instantiation that takes it writes the module's active data segments again itself.
 */
import { POOLED_MEMORY_MODULE, pooledMemoryName, pooledMemoryOf, type PooledMemoryType } from './memory-import.ts';

/** The pool's bounds per thread (README, resource ledger). */
export const MEMORY_POOL_LIMITS = {
  /** Memories kept at most. */
  memories: 4,
  /** Bytes kept at most, all memories together. */
  bytes: 64 * 1024 * 1024,
} as const;

const PAGE = 65_536;
const kept = new Map<string, WebAssembly.Memory[]>();
let keptCount = 0;
let keptBytes = 0;

const keyOf = (type: PooledMemoryType): string => `${type.initial}:${type.maximum}:${type.shared ? 's' : 'u'}`;

/** A zeroed memory of `type` at its initial size: one kept by the pool, or a new one. */
export function takeMemory(type: PooledMemoryType): WebAssembly.Memory {
  const memories = kept.get(keyOf(type));
  const memory = memories?.pop();
  if (memory !== undefined) {
    keptCount--;
    keptBytes -= memory.buffer.byteLength;
    return memory;
  }
  return new WebAssembly.Memory({ initial: type.initial, maximum: type.maximum, shared: type.shared });
}

/**
 * Offers a memory of `type` back to the pool, from an instance that closed cleanly and that no
 * call can reach any more. Kept (zeroed first) only at its initial size and while the pool is
 * under its bounds; true when kept. A memory not kept is left to the collector.
 */
export function giveBackMemory(memory: WebAssembly.Memory, type: PooledMemoryType): boolean {
  const bytes = memory.buffer.byteLength;
  if (bytes !== type.initial * PAGE) return false;
  if (keptCount + 1 > MEMORY_POOL_LIMITS.memories || keptBytes + bytes > MEMORY_POOL_LIMITS.bytes) return false;
  zero(memory);
  const key = keyOf(type);
  const memories = kept.get(key) ?? [];
  memories.push(memory);
  kept.set(key, memories);
  keptCount++;
  keptBytes += bytes;
  return true;
}

/** The recycled memory one instance runs on, from its creation to its close. */
export interface MemoryLease {
  /** The import it fills (`imports[module][name] = memory`); undefined for a module that defines its own memory. */
  readonly import: { module: string; name: string; memory: WebAssembly.Memory } | undefined;
  /** The instance failed in a way that may leave its memory anywhere (a trap, a deadline, a kill, a half-done instantiation): never recycled. */
  spoil(): void;
  /** The instance closed cleanly and no call can reach it: its memory goes back to the pool unless spoiled, grown or over the bounds. */
  end(): void;
}

/**
 * A lease of a pooled memory for an instance of `module` (one the host rewrote, memory-import.ts),
 * or an empty lease: for a module that defines its memory, and for one whose import asks for a
 * maximum above `capPages` (not the host's rewrite: it then fails to link, as it should).
 */
export function leaseMemory(module: WebAssembly.Module, capPages: number): MemoryLease {
  const asked = pooledMemoryOf(module);
  const type = asked !== undefined && asked.maximum <= capPages && asked.initial <= asked.maximum ? asked : undefined;
  let spoiled = false;
  let ended = false;
  const memory = type === undefined ? undefined : takeMemory(type);
  return {
    import: type === undefined || memory === undefined ? undefined : { module: POOLED_MEMORY_MODULE, name: pooledMemoryName(type), memory },
    spoil: () => void (spoiled = true),
    end() {
      if (ended) return;
      ended = true;
      if (!spoiled && type !== undefined && memory !== undefined) giveBackMemory(memory, type);
    },
  };
}

/**
 * A module of one function, `zero(length)`: `memory.fill` of its imported shared memory from 0,
 * V8's memset. A typed array's `fill` on a shared buffer stores byte by byte (1.0 ms for 2.25 MiB
 * where memset takes 0.03 ms; 8 bytes at a time 0.11–0.15 ms).
 */
const ZERO_SHARED = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 1, 127, 0, 2, 11, 1, 1, 109, 1, 109, 2, 3, 0, 128, 128, 4, 3, 2, 1, 0, 7, 8, 1, 4, 122, 101, 114, 111, 0, 0, 10, 13, 1, 11, 0, 65, 0, 65, 0, 32, 0, 252, 11, 0, 11]);
/** The module compiled on this thread; null where compiling wasm at run time is refused (workerd). */
let zeroModule: WebAssembly.Module | null | undefined;
const zeroers = new WeakMap<WebAssembly.Memory, (length: number) => void>();

/** Writes zeros over the whole of `memory`. */
function zero(memory: WebAssembly.Memory): void {
  const buffer: ArrayBufferLike = memory.buffer;
  const bytes = buffer.byteLength;
  if (!(typeof SharedArrayBuffer === 'function' && buffer instanceof SharedArrayBuffer)) return void new Uint8Array(buffer).fill(0);
  let zeroer = zeroers.get(memory);
  if (zeroer === undefined) {
    try {
      zeroModule ??= new WebAssembly.Module(ZERO_SHARED);
    } catch {
      zeroModule = null;
    }
    if (zeroModule !== null) {
      zeroer = new WebAssembly.Instance(zeroModule, { m: { m: memory } }).exports.zero as (length: number) => void;
      zeroers.set(memory, zeroer);
    }
  }
  if (zeroer !== undefined) zeroer(bytes);
  else new BigUint64Array(buffer).fill(0n);
}

/** What the pool keeps now (for tests and the bench). */
export function memoryPoolSize(): { memories: number; bytes: number } {
  return { memories: keptCount, bytes: keptBytes };
}

/** Drops every kept memory (for tests). */
export function emptyMemoryPool(): void {
  kept.clear();
  keptCount = 0;
  keptBytes = 0;
}
