/**
 * A wasm artifact's file identity, which keys its compiled module in a process (registry/launch.ts),
 * and the modules compiled before the launch asked for them (cli/early-compile.ts: while the CLI
 * loads). No imports: the early start loads it before the rest of the command.
 */

/** What of a file's `stat` the key holds: any write to the file moves `ctimeMs`. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** The {@link FileIdentity} fields of `stats` alone (a `Stats` does not cross threads whole). */
export function identityOf(stats: FileIdentity): FileIdentity {
  const { dev, ino, size, mtimeMs, ctimeMs } = stats;
  return { dev, ino, size, mtimeMs, ctimeMs };
}

/** True when `a` and `b` describe the same file, unwritten between the two looks. */
export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/**
 * The key of the module of the file at `path` as `identity` describes it, under a memory cap
 * (`maxMemoryBytes`, undefined for the default) and the sha256 a lock pins (undefined: none).
 */
export function moduleFileKey(path: string, identity: FileIdentity, maxMemoryBytes: number | undefined, pin: string | undefined): string {
  return [path, identity.dev, identity.ino, identity.size, identity.mtimeMs, identity.ctimeMs, maxMemoryBytes ?? '', pin ?? ''].join(':');
}

/** Modules compiled ahead, by key, each taken at most once. */
const ahead = new Map<string, Promise<WebAssembly.Module>>();

/**
 * Offers the module of the file whose identity `key` holds, compiled ahead from bytes read after
 * that identity was taken (so a write to the file since changes the key the launch computes, and
 * the offer is not taken). Only for a file no lock pins: a pinned launch checks its own hash.
 */
export function offerModuleAhead(key: string, module: Promise<WebAssembly.Module>): void {
  module.catch(() => undefined);
  ahead.set(key, module);
}

/** The module offered under `key`, once (then forgotten), or undefined. */
export function takeModuleAhead(key: string): Promise<WebAssembly.Module> | undefined {
  const module = ahead.get(key);
  ahead.delete(key);
  return module;
}
