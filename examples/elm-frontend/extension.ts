/**
 * Morphir's Elm frontend as an MEP extension: `morphir.frontend.compile` from Elm sources to
 * Morphir IR with morphir-elm's own compiler (npm `morphir-elm`, the compiler of the default
 * `morphir-elm make`), bundled by `mep build` and run in the wasm sandbox or as a process:
 * `mep build examples/elm-frontend/extension.ts -o elm-frontend.wasm`.
 */
import { defineExtension } from '../../guest-pdk/src/index.ts';
import { compileElm, ELM_IR_VERSIONS } from './src/compile.ts';
import { compileElmWorker, createElmWorker, type ElmConsole } from './src/elm-worker.ts';
import { MORPHIR_ELM_VERSION } from './src/elm-patches.ts';
import { MORPHIR_ELM_INSTALLED_VERSION, MORPHIR_ELM_WORKER_SOURCE } from './src/morphir-elm-source.ts';
import { createTimerQueue } from './src/timer-queue.ts';
import { warmUp } from './src/warm-up.ts';

// morphir-elm's worker is compiled in DEV mode: it prints a warning at start and a Debug.log line
// for every value it compiles, none of which is for the user of this frontend.
const quiet: ElmConsole = { log: () => undefined, warn: () => undefined, error: () => undefined };

// Started once per instance (in the wasm build, before the snapshot) and reused by every compile:
// morphir-elm's worker keeps no state between builds.
const worker = createElmWorker(compileElmWorker(MORPHIR_ELM_WORKER_SOURCE, MORPHIR_ELM_INSTALLED_VERSION), createTimerQueue(), quiet);
warmUp(worker);

export default defineExtension({
  info: { id: 'morphir-elm-frontend', name: `Morphir Elm frontend (morphir-elm ${MORPHIR_ELM_VERSION})`, version: '0.1.0' },
  // Its compile checks ctx.cancelled per module (src/compile.ts): it may advertise cancellation.
  cancellation: true,
  frontend: {
    languages: [{ id: 'elm', fileExtensions: ['.elm'] }],
    irVersions: [...ELM_IR_VERSIONS],
    multiDocument: true,
    // Given a baseline (MEP 0.1), only changed modules and the dependents of a changed interface
    // are compiled again (src/incremental.ts); the merged IR equals a full build's.
    incremental: true,
    compile: (params, ctx) => compileElm(params, worker, ctx),
  },
});
