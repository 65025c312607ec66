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
 * what every caller reads).
 *
 * `own-module-specification`: looking up a type or value of the package being compiled turned the
 * whole package definition into a specification (every module, type and value) to read one
 * module of it; type inference does that for every reference, so each value's inference grew with
 * the package. The replacement turns just the module looked up into its specification, the same
 * value the whole conversion held for it.
 *
 * `fresh-node`: inserting a node that is not in the DAG yet (a type or value compiled for the first
 * time, in dependency order: the common case) checked each of its edges for a cycle too, by
 * collecting everything reachable from the edge's target. Nothing can reach a node that is not in
 * the DAG (every edge's target is in it), and its own new edges only lead away from it, so none of
 * them can close a cycle: the replacement adds the node with its edges at once, as the checked
 * insertion would, and leaves every other insertion to the original.
 *
 * `recursive-constraint`: type inference checks every constraint for recursion on every step of
 * the solver (a value's constraints, dozens of steps), and each check first expands both sides'
 * type aliases in full (an alias of a record whose fields are aliases of records, down the model's
 * chains of modules): 84 s of a 60-module compile in the sandbox. The answer depends on the
 * constraint alone, an immutable value, and a step hands the constraints it did not change to the
 * next one as the same objects: the replacement remembers the answer per constraint object (a
 * WeakMap, so nothing outlives the constraint), and answers at once for a constraint with a side
 * without type variables (none appear when its aliases are expanded either, so it is not
 * recursive). Any other constraint is asked of the original.
 *
 * `implicit-exposure`: finding the modules that an exposed module's public types make public took
 * the pending type references as a list and built a set of the rest again for every reference it
 * looked at, quadratic in the references of a package (54 s of a 60-module compile in the sandbox).
 * The replacement computes the same set the same way (its own code: the same references, looked
 * at in the same order, smallest first) with a binary heap. A module definition's references are
 * collected once (remembered per definition object, a WeakMap: an incremental compile asks again
 * for every module it kept), and a reference the walk would pass over when it took it (to another
 * package, to an exposed module) is not pushed.
 *
 * `trusted-distribution`: an incremental build starts from the IR of the modules it keeps
 * (`Repo.fromDistribution`), which inserts every type and value into the dependency DAGs with a
 * cycle check per edge, as if the modules were new. That IR is what an earlier build of this
 * package returned, acyclic by construction: while the repository is rebuilt from it, a node's
 * edges are added at once (the union with those it has, and each target added when missing: the
 * DAG the checked insertion builds), and every insertion after it is checked again.
 *
 * `module-step`: every module the build compiles first calls `moduleStep(moduleName)`, a parameter
 * of the worker's code (elm-worker.ts): the frontend reports progress per module and checks for
 * cancellation there (a throw ends the build, and the worker is started afresh for the next).
 *
 * `name-memo`: Morphir's `Name.fromString` compiled its word pattern (a regular expression) and
 * split the text with it on every call: every name of the package and of the SDK's modules, the
 * same few hundred again and again. It is a pure function of its text: the replacement keeps the
 * name it returned per text (at most 4,096, then forgets them all and starts again). The SDK's
 * names are known in the snapshot. The showcase's first build after the warm-up on the native
 * engine: 734.5 M → 698.5 M instructions (−4.9 %); the worker's start and warm-up 1,367 M → 1,137 M.
 *
 * The edits that make later compiles of a session cheap are in elm-patches-session.ts; those that
 * make parsing cheaper (character equality, elm-syntax's lazy parsers) in elm-patches-parse.ts.
 *
 * None of them changes the IR; the parity tests check it against the real, unedited
 * `morphir-elm make`.
 */
import { PARSE_PATCHES } from './elm-patches-parse.ts';
import { SESSION_PATCHES } from './elm-patches-session.ts';

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
  {
    name: 'own-module-specification',
    before: 'var $author$project$Morphir$IR$Module$lookupTypeSpecification = F2(',
    code: `$author$project$Morphir$IR$Distribution$lookupModuleSpecification = F3(function (packageName, modulePath, distribution) {
  var libraryPackageName = distribution.a, dependencies = distribution.b, packageDef = distribution.c;
  var ownSpecification = function (module) { return $author$project$Morphir$IR$Module$definitionToSpecificationWithPrivate($author$project$Morphir$IR$AccessControlled$withPrivateAccess(module)); };
  return _Utils_eq(packageName, libraryPackageName)
    ? A2($elm$core$Maybe$map, ownSpecification, A2($elm$core$Dict$get, modulePath, packageDef.modules))
    : A2($elm$core$Maybe$andThen, $author$project$Morphir$IR$Package$lookupModuleSpecification(modulePath), A2($elm$core$Dict$get, packageName, dependencies));
});
`,
  },
  {
    name: 'fresh-node',
    before: 'var $stil4m$elm_syntax$Elm$Syntax$Node$Node = F2(',
    code: `$author$project$Morphir$Dependency$DAG$insertNode = (function (checked) {
  var addTarget = F2(function (to, edges) { return A2($elm$core$Dict$member, to, edges) ? edges : A3($elm$core$Dict$insert, to, $elm$core$Set$empty, edges); });
  return F3(function (fromNode, toNodes, dag) {
    var edges = dag.a;
    if (A2($elm$core$Dict$member, fromNode, edges)) return A3(checked, fromNode, toNodes, dag);
    return $elm$core$Result$Ok($author$project$Morphir$Dependency$DAG$DAG(A3($elm$core$Set$foldl, addTarget, A3($elm$core$Dict$insert, fromNode, toNodes, edges), toNodes)));
  });
})($author$project$Morphir$Dependency$DAG$insertNode);
`,
  },
  {
    name: 'recursive-constraint',
    before: 'var $author$project$Morphir$Type$MetaType$intType = A2(',
    code: `$author$project$Morphir$Type$Constraint$isRecursive = (function (expanding) {
  var known = new WeakMap();
  var free = function (t) { return $elm$core$Set$isEmpty($author$project$Morphir$Type$MetaType$variables(t)); };
  return function (constraint) {
    if (constraint.$ !== 'Equality') return expanding(constraint);
    if (free(constraint.b) || free(constraint.c)) return false;
    var answer = known.get(constraint);
    if (answer === undefined) {
      answer = expanding(constraint);
      known.set(constraint, answer);
    }
    return answer;
  };
})($author$project$Morphir$Type$Constraint$isRecursive);
`,
  },
  {
    name: 'implicit-exposure',
    before: 'var $author$project$Morphir$IR$Repo$moduleDependencies = function (_v0) {',
    code: `$author$project$Morphir$Elm$IncrementalFrontend$collectImplicitlyExposedModules = (function (referenced) {
  return F3(function (packageName, moduleDefs, exposedModules) {
  var none = $elm$core$Set$empty;
  var union = function (a, b) { return A2($elm$core$Set$union, a, b); };
  var refs = $author$project$Morphir$IR$Type$collectReferences;
  var isPublic = function (ac) { return _Utils_eq(ac.access, $author$project$Morphir$IR$AccessControlled$Public); };
  var typeRefs = function (ac) {
    if (!isPublic(ac)) return none;
    var def = ac.value.value;
    if (def.$ === 'TypeAliasDefinition') return refs(def.b);
    if (!isPublic(def.b)) return none;
    var out = none;
    for (var ctors = $elm$core$Dict$values(def.b.value); ctors.b; ctors = ctors.b) for (var args = ctors.a; args.b; args = args.b) out = union(out, refs(args.a.b));
    return out;
  };
  var valueRefs = function (ac) {
    if (!isPublic(ac)) return none;
    var out = refs(ac.value.value.outputType);
    for (var inputs = ac.value.value.inputTypes; inputs.b; inputs = inputs.b) out = union(out, refs(inputs.a.c));
    return out;
  };
  var heap = [];
  var less = function (i, j) { return _Utils_cmp(heap[i], heap[j]) < 0; };
  var swap = function (i, j) { var t = heap[i]; heap[i] = heap[j]; heap[j] = t; };
  // A reference to another package or to an exposed module is passed over when taken: it is not pushed.
  var push = F2(function (fqn, n) {
    if (!_Utils_eq(fqn.a, packageName) || A2($elm$core$Set$member, fqn.b, exposedModules)) return n;
    heap.push(fqn);
    for (var i = heap.length - 1; i > 0 && less(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    return n;
  });
  var pop = function () {
    var top = heap[0], last = heap.pop();
    if (heap.length > 0) {
      heap[0] = last;
      for (var i = 0; ; ) {
        var l = 2 * i + 1, r = l + 1, m = i;
        if (l < heap.length && less(l, m)) m = l;
        if (r < heap.length && less(r, m)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
    return top;
  };
  var pushAll = function (set) { A3($elm$core$Set$foldl, push, 0, set); };
  A3($elm$core$Set$foldl, F2(function (modName, n) {
    var found = A2($elm$core$Dict$get, modName, moduleDefs);
    if (found.$ !== 'Just') return n;
    var refs = referenced.get(found.a);
    if (refs === undefined) {
      refs = [];
      var collect = F2(function (fqn, m) { refs.push(fqn); return m; });
      A3($elm$core$Dict$foldl, F3(function (k, ac, m) { A3($elm$core$Set$foldl, collect, 0, typeRefs(ac)); return m; }), 0, found.a.types);
      A3($elm$core$Dict$foldl, F3(function (k, ac, m) { A3($elm$core$Set$foldl, collect, 0, valueRefs(ac)); return m; }), 0, found.a.values);
      referenced.set(found.a, refs);
    }
    for (var i = 0; i < refs.length; i++) A2(push, refs[i], 0);
    return n;
  }), 0, exposedModules);
  // The original takes the smallest pending reference each time, and follows only the first one of
  // each module it makes public; a reference seen twice is looked at twice, to no further effect.
  var implicit = none;
  while (heap.length > 0) {
    var fqn = pop();
    if (!_Utils_eq(fqn.a, packageName) || A2($elm$core$Set$member, fqn.b, exposedModules) || A2($elm$core$Set$member, fqn.b, implicit)) continue;
    var module = A2($elm$core$Dict$get, fqn.b, moduleDefs);
    var type = module.$ === 'Just' ? A2($elm$core$Dict$get, fqn.c, module.a.types) : module;
    if (type.$ === 'Just') pushAll(typeRefs(type.a));
    implicit = A2($elm$core$Set$insert, fqn.b, implicit);
  }
  return implicit;
  });
})(new WeakMap());
`,
  },
  {
    name: 'trusted-distribution',
    before: "var $author$project$Morphir$Elm$CLI$generateResult = _Platform_outgoingPort('generateResult', $elm$core$Basics$identity);",
    code: `$author$project$Morphir$IR$Repo$fromDistribution = (function (original) {
  var addTarget = F2(function (to, edges) { return A2($elm$core$Dict$member, to, edges) ? edges : A3($elm$core$Dict$insert, to, $elm$core$Set$empty, edges); });
  var trusted = F3(function (fromNode, toNodes, dag) {
    var edges = dag.a;
    var own = A2($elm$core$Maybe$withDefault, $elm$core$Set$empty, A2($elm$core$Dict$get, fromNode, edges));
    return $elm$core$Result$Ok($author$project$Morphir$Dependency$DAG$DAG(A3($elm$core$Set$foldl, addTarget, A3($elm$core$Dict$insert, fromNode, A2($elm$core$Set$union, toNodes, own), edges), toNodes)));
  });
  return function (distribution) {
    var checked = $author$project$Morphir$Dependency$DAG$insertNode;
    $author$project$Morphir$Dependency$DAG$insertNode = trusted;
    try {
      return original(distribution);
    } finally {
      $author$project$Morphir$Dependency$DAG$insertNode = checked;
    }
  };
})($author$project$Morphir$IR$Repo$fromDistribution);
`,
    },
    {
    name: 'module-step',
    before: 'var $author$project$Morphir$Elm$IncrementalFrontend$applyInsert = F5(',
    code: `$author$project$Morphir$Elm$IncrementalFrontend$processModule = (function (compile) {
  return F5(function (moduleName, parsedModule, opts, exposedModules, repo) {
    moduleStep(moduleName);
    return A5(compile, moduleName, parsedModule, opts, exposedModules, repo);
  });
})($author$project$Morphir$Elm$IncrementalFrontend$processModule);
`,
  },
  {
    name: 'name-memo',
    before: 'var $author$project$Morphir$Elm$IncrementalFrontend$extractConstructorNames = function (parsedModule) {',
    code: `$author$project$Morphir$IR$Name$fromString = (function (split) {
  var known = new Map();
  return function (string) {
    var name = known.get(string);
    if (name === undefined) {
      if (known.size >= 4096) known.clear();
      name = split(string);
      known.set(string, name);
    }
    return name;
  };
})($author$project$Morphir$IR$Name$fromString);
`,
  },
  ...SESSION_PATCHES,
  ...PARSE_PATCHES,
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
