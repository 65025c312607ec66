/**
 * Build-time edits of morphir-elm's compiled Elm worker, each anchored on one line of it that must
 * occur exactly once (a different morphir-elm fails the build, naming the edit, instead of running
 * unedited). Each edit adds code of ours; none copies morphir-elm's.
 *
 * `forward-reachability`: the default `morphir-elm make` inserts every dependency edge of every
 * type and value into a DAG, and checks each edge for a cycle by collecting everything reachable
 * from its target with one full pass over all edges per step of depth. On the 60-module model
 * (1,500 types) that is 90 % of the compile (124 s of 137 s in V8). The replacement walks the
 * successors instead and returns the same set (an Elm Set: its members, not its tree shape, are
 * what every caller reads), so the IR is unchanged; the parity tests check it against the real
 * `morphir-elm make`.
 */

/** One edit: `code` is inserted before the line `before`. */
export interface ElmPatch {
  name: string;
  before: string;
  code: string;
}

/** The morphir-elm release the edits were written against. */
export const MORPHIR_ELM_VERSION = '2.82.0';

/** The edits, in the order they are applied. */
export const ELM_PATCHES: readonly ElmPatch[] = [
  {
    name: 'forward-reachability',
    before: 'var $author$project$Morphir$Dependency$DAG$insertEdge = F3(',
    code: `$author$project$Morphir$Dependency$DAG$collectForwardReachableNodes = F2(function (firstNode, dag) {
  var edges = dag.a, reached = $elm$core$Set$empty, pending = [];
  var enqueue = F2(function (node, count) { pending.push(node); return count + 1; });
  var successors = function (node) { A3($elm$core$Set$foldl, enqueue, 0, A2($elm$core$Maybe$withDefault, $elm$core$Set$empty, A2($elm$core$Dict$get, node, edges))); };
  successors(firstNode);
  while (pending.length > 0) {
    var node = pending.pop();
    if (!A2($elm$core$Set$member, node, reached)) { reached = A2($elm$core$Set$insert, node, reached); successors(node); }
  }
  return reached;
});
`,
  },
];

/**
 * Applies {@link ELM_PATCHES} to the worker's source. Throws naming the edit when its anchor line
 * is missing or not unique, and when `version` is not {@link MORPHIR_ELM_VERSION}.
 */
export function patchElmWorker(source: string, version: string): string {
  if (version !== MORPHIR_ELM_VERSION) {
    throw new Error(`elm-frontend: built against morphir-elm ${MORPHIR_ELM_VERSION}, found ${version}; install morphir-elm@${MORPHIR_ELM_VERSION} (npm ci) and build again`);
  }
  let out = source;
  for (const patch of ELM_PATCHES) {
    const parts = out.split(patch.before);
    if (parts.length !== 2) {
      throw new Error(`elm-frontend: the edit '${patch.name}' expects one line '${patch.before}' in morphir-elm ${version}'s worker, found ${parts.length - 1}`);
    }
    out = `${parts[0]}${patch.code}${patch.before}${parts[1]}`;
  }
  return out;
}
