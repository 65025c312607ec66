/**
 * A cache of compiled wasm modules that keeps none alive: while a module compiles its promise is
 * held, and once compiled only a weak reference to it, so a module stays cached exactly as long
 * as something else uses it (a session, a pooled worker prepared for it, a caller). A long-lived
 * host (`mep serve`) that opened sessions of many modules one after another keeps nothing of those
 * whose sessions closed; a command opening several sessions of one extension compiles it once.
 */

/** See {@link createModuleCache}. */
export interface ModuleCache {
  /** The module cached under `key`, or the one `compile` makes (a failure is not cached). */
  get(key: string, compile: () => Promise<WebAssembly.Module>): Promise<WebAssembly.Module>;
  /** Entries compiling or still alive (for tests). */
  size(): number;
}

/**
 * A cache of at most `maxEntries` keys (the oldest is dropped first). Where the platform has no
 * `WeakRef` (workerd, say) it only shares a compile in progress and keeps no compiled module;
 * without `FinalizationRegistry` a collected module's key is dropped when next looked up.
 */
export function createModuleCache(maxEntries: number): ModuleCache {
  const entries = new Map<string, Promise<WebAssembly.Module> | WeakRef<WebAssembly.Module>>();
  const weak = typeof WeakRef === 'function';
  // A collected module's key goes, unless the key was compiled again meanwhile.
  const gone =
    typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry<{ key: string; ref: WeakRef<WebAssembly.Module> }>(({ key, ref }) => {
          if (entries.get(key) === ref) entries.delete(key);
        })
      : undefined;
  return {
    get(key, compile) {
      const entry = entries.get(key);
      if (entry instanceof Promise) return entry;
      const alive = entry?.deref();
      if (alive !== undefined) return Promise.resolve(alive);
      if (entry !== undefined) entries.delete(key);
      const compiling = compile();
      entries.set(key, compiling);
      compiling.then(
        (module) => {
          if (entries.get(key) !== compiling) return;
          if (!weak) {
            entries.delete(key);
            return;
          }
          const ref = new WeakRef(module);
          entries.set(key, ref);
          gone?.register(module, { key, ref });
        },
        // A failed compile is not cached: the next attempt reports its own error.
        () => {
          if (entries.get(key) === compiling) entries.delete(key);
        },
      );
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return compiling;
    },
    size: () => entries.size,
  };
}
