/** Source maps of guest bundles, and guest stacks mapped through them to the author's sources. */
export { parseSourceMap, SourceMapError, SourceMapJson, type OriginalPosition, type SourceMap } from './source-map.ts';
export { formatPosition, mapStack, type MappedStack, type StackFrame, type StackMapping } from './stack.ts';
export { mapExtensionError, withSourceMappedErrors, type SourceMappedOptions, type SourceMapSource } from './mapped-errors.ts';
export { moduleSourceMap, SOURCE_MAP_SECTION } from './wasm-section.ts';
