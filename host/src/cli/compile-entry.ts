/**
 * The entry of dist/cli/compile.cjs, the `mep` command bundled as one CommonJS file for V8's code
 * cache (cached-cli.ts runs it; scripts/build-package.ts builds it).
 */
export { runCli } from './run-cli.ts';
export { undoWasmTierChoice } from '../transport/wasm/node/wasm-tier.ts';
