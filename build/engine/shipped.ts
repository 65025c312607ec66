/**
 * The engine shipped inside the npm package. `npm run build` (scripts/build-package.ts) copies
 * the engine built from this checkout, and its guests' copy, into `dist/engine/` with a
 * small manifest, so an installed mep-runtime builds guests without clang or wasi-libc. Code
 * running from sources (a checkout) never uses it: it builds the engine from the glue sources.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** The manifest's file name inside `dist/engine/`. */
export const SHIPPED_ENGINE_MANIFEST = 'engine.json';

/** What `dist/engine/engine.json` records. */
export interface ShippedEngineManifest {
  /** The engine's input hash (the same hash a checkout computes for the same sources). */
  hash: string;
  /** File name of the engine wasm, beside the manifest. */
  wasm: string;
  /** File name of its guests' copy (build/guest/optimized-engine.ts), beside the manifest: `<wasm>` with `.guest.wasm`. */
  optimized: string;
}

/** A shipped engine in the shape `ensureEngine` returns. */
export interface ShippedEngine {
  wasmPath: string;
  hash: string;
  built: false;
}

/**
 * Reads the shipped engine from `engineDir` (the package's `dist/engine`). Throws `ERR_BUILD`
 * naming the folder when the manifest or a file it lists is missing: the package was built
 * without `npm run build`, or files were removed from it.
 */
export function readShippedEngine(engineDir: string): ShippedEngine {
  const manifestPath = join(engineDir, SHIPPED_ENGINE_MANIFEST);
  if (!existsSync(manifestPath)) {
    throw new MepError(
      LocalErrorCode.Build,
      `the guest engine is missing from this mep-runtime install (no ${manifestPath}); reinstall mep-runtime, or in a checkout run 'npm run build' to ship the engine`,
    );
  }
  let manifest: Partial<ShippedEngineManifest> | null;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Partial<ShippedEngineManifest> | null;
  } catch (cause) {
    throw new MepError(LocalErrorCode.Build, `the engine manifest ${manifestPath} is not valid JSON; reinstall mep-runtime`, { cause });
  }
  // optimized-engine.ts finds the guests' copy by name: `<engine>.guest.wasm` beside the engine.
  if (typeof manifest?.hash !== 'string' || !isFileName(manifest.wasm) || manifest.optimized !== manifest.wasm.replace(/\.wasm$/, '.guest.wasm')) {
    throw new MepError(LocalErrorCode.Build, `the engine manifest ${manifestPath} does not list a hash, an engine and its .guest.wasm copy beside it; reinstall mep-runtime`);
  }
  for (const file of [manifest.wasm, manifest.optimized as string]) {
    if (!existsSync(join(engineDir, file))) {
      throw new MepError(LocalErrorCode.Build, `the engine file '${file}' listed in ${manifestPath} is missing; reinstall mep-runtime`);
    }
  }
  const wasmPath = join(engineDir, manifest.wasm);
  return { wasmPath, hash: manifest.hash, built: false };
}

/** A plain `.wasm` file name in the manifest's own folder (no path: nothing outside it is read). */
function isFileName(value: unknown): value is string {
  return typeof value === 'string' && /^[\w.-]+\.wasm$/.test(value) && !value.startsWith('.');
}
