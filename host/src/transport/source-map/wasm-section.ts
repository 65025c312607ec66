/**
 * The source map a wasm guest carries: `mep build` stores its bundle's map (JSON, version 3) in a
 * custom section named `mep.sourcemap`. Custom sections cost nothing at instantiation (the engine
 * skips them), so the map travels with the module, installed or not, and is read only when an
 * error needs it. It is the guest's data: a section longer than `HOST_BOUNDS.maxSourceMapBytes`
 * is refused before it is decoded, and the decoded map belongs to the one session that asked for
 * it (a module is shared by many sessions of `mep serve`; a map kept with it stayed after them).
 * No `node:` module: it runs wherever the wasm core does.
 */
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import { parseSourceMap, SourceMapLimitError } from './source-map.ts';
import type { SourceMapSource } from './mapped-errors.ts';

/** The name of the custom section that holds a guest's source map. */
export const SOURCE_MAP_SECTION = 'mep.sourcemap';

/**
 * The source map of a compiled guest, read when called (once per session: the caller keeps it);
 * undefined for a module built without one (`mep build --no-source-map`, other compilers).
 * Throws `SourceMapError` for a section that is not a valid map, `SourceMapLimitError` for one
 * past the host's bounds.
 */
export function moduleSourceMap(module: WebAssembly.Module): SourceMapSource {
  return () => {
    const [section] = WebAssembly.Module.customSections(module, SOURCE_MAP_SECTION);
    if (section === undefined) return undefined;
    if (section.byteLength > HOST_BOUNDS.maxSourceMapBytes) {
      throw new SourceMapLimitError(`its ${SOURCE_MAP_SECTION} section is ${section.byteLength} bytes, more than the ${HOST_BOUNDS.maxSourceMapBytes} the host decodes (maxSourceMapBytes)`, 'maxSourceMapBytes');
    }
    return parseSourceMap(new TextDecoder().decode(section));
  };
}
