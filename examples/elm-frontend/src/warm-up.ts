/**
 * One build of a one-module project on a fresh worker, before its first request: in the wasm
 * build this runs before the snapshot, so what QuickJS does the first time the compiler's code
 * runs (object shapes, atoms, the collector's first thresholds) is in the snapshot instead of in
 * every session's first compile. The build is the one `morphir-elm make` would run; nothing of it
 * is kept for later builds (its repository is never reused: no later build has its context).
 */
import type { ElmWorker } from './elm-worker.ts';

/** The warm-up project: a type, a record, a union and a function, so the compiler's every stage runs. */
const WARM_UP_SOURCE = `module Warm.Up exposing (..)


type alias Money =
    Float


type alias Line =
    { sku : String, quantity : Int, price : Money }


type Status
    = Open
    | Closed String


total : List Line -> Money
total lines =
    List.foldl (\\l sum -> sum + toFloat l.quantity * l.price) 0 lines


describe : Status -> String
describe status =
    case status of
        Open ->
            "open"

        Closed why ->
            "closed: " ++ why
`;

/**
 * Builds the warm-up project on `worker`; returns whether it compiled (a failure is not an
 * error: the worker starts afresh for the next build, as after any failed build).
 */
export function warmUp(worker: ElmWorker): boolean {
  try {
    const outcome = worker.build({
      options: { typesOnly: false },
      packageInfo: { name: 'Warm' },
      dependencies: [],
      fileSnapshot: { 'src/Warm/Up.elm': WARM_UP_SOURCE },
    });
    return !(outcome instanceof Promise) && outcome.kind === 'built';
  } catch {
    return false;
  }
}
