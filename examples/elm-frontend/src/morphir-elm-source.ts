/// <reference path="./morphir-elm.d.ts" />
/**
 * The text of morphir-elm's compiler, taken from the installed npm package when the extension is
 * bundled (`mep build`; esbuild's text and JSON imports). Only the extension's entry imports this
 * module: the rest of the frontend takes the source as a value, so Node-side tests read the same
 * file themselves.
 */
import source from 'morphir-elm/cli2/Morphir.Elm.CLI.js' with { type: 'text' };
import manifest from 'morphir-elm/package.json' with { type: 'json' };

/** `cli2/Morphir.Elm.CLI.js` of the installed morphir-elm, the compiler of the default `morphir-elm make`. */
export const MORPHIR_ELM_WORKER_SOURCE: string = source;
/** The installed morphir-elm's version. */
export const MORPHIR_ELM_INSTALLED_VERSION: string = manifest.version;
