/**
 * The globals of a mep wasm guest, exactly: the ECMAScript 2023 library (without `Intl` and
 * `Atomics`, which the sandbox lacks: `mep build` reports their use), the web platform globals of
 * sandbox-web.d.ts and the Extism globals of sandbox-extism.d.ts. No DOM, no Node.js.
 *
 * Shipped as `mep-runtime/guest-pdk/globals`; an extension's tsconfig uses it with
 * `"lib": ["ES2023"], "types": ["mep-runtime/guest-pdk/globals"]` (what `mep init` writes).
 */
/// <reference lib="es2023" />
/// <reference path="./sandbox-web.d.ts" />
/// <reference path="./sandbox-extism.d.ts" />
