/**
 * The source map a wasm guest carries: `mep build` stores its bundle's map (JSON, version 3) in a
 * custom section named `mep.sourcemap`. Custom sections cost nothing at instantiation (the engine
 * skips them), so the map travels with the module, installed or not, and is read only when an
 * error needs it. No `node:` module: it runs wherever the wasm core does.
 */
import { parseSourceMap, type SourceMap } from './source-map.ts';
import type { SourceMapSource } from './mapped-errors.ts';

/** The name of the custom section that holds a guest's source map. */
export const SOURCE_MAP_SECTION = 'mep.sourcemap';

const decoded = new WeakMap<WebAssembly.Module, SourceMap | undefined>();

/**
 * The source map of a compiled guest, decoded once per module on first use; undefined for a
 * module built without one (`mep build --no-source-map`, other compilers). Throws
 * `SourceMapError` for a section that is not a valid map.
 */
export function moduleSourceMap(module: WebAssembly.Module): SourceMapSource {
  return () => {
    if (decoded.has(module)) return decoded.get(module);
    const [section] = WebAssembly.Module.customSections(module, SOURCE_MAP_SECTION);
    const map = section === undefined ? undefined : parseSourceMap(new TextDecoder().decode(section));
    decoded.set(module, map);
    return map;
  };
}
