/**
 * The two files this frontend takes from the npm package `morphir-elm`, imported as text and
 * JSON (esbuild bundles them at build time; nothing of morphir-elm is committed here).
 */
declare module 'morphir-elm/cli2/Morphir.Elm.CLI.js' {
  /** The compiled Elm worker behind `morphir-elm make`, as source text. */
  const source: string;
  export default source;
}

declare module 'morphir-elm/package.json' {
  /** The package manifest; only its version is read. */
  const manifest: { version: string };
  export default manifest;
}
