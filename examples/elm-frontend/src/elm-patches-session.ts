/**
 * The edits of morphir-elm's worker (see elm-patches.ts, which applies them after its own) that
 * make a session's later compiles cheap: ordering, remembered references, the kept repository and
 * the modules a build keeps. Each adds code of ours; none copies morphir-elm's.
 *
 * `used-modules`: the modules a build keeps are the exposed ones and what they reach in the
 * module DAG; that set was the union of one walk of the DAG per exposed module (60 walks and 60
 * set unions on the 60-module model, on every build). The replacement walks once from all the
 * exposed modules and deletes the others as the original does (the same set: its members are what
 * is read).
 *
 * `topological-levels`: ordering a DAG by dependency took its nodes without incoming edges as one
 * level, removed them and went again, finding each node's incoming edges with a pass over every
 * edge of the DAG: cubic in the nodes (the package's modules, and in each module insertion its
 * types). The replacement counts each node's incoming edges once and lowers the counts as a
 * level goes (Kahn's algorithm by levels): the same levels, each in the DAG's key order, the
 * same list. A DAG in which a level comes out empty (a cycle) is ordered by the original.
 *
 * `reference-memo`: the references of a value's body, of a type definition and of a module
 * (`Value.collectReferences`, `Type.collectReferencesFromDefintion`, `Module.dependsOnModules`)
 * are remembered per value object (a WeakMap; only the outermost call of the recursion): an
 * incremental build inserts every kept module into its repository again, and ordering them by
 * dependency walks every module definition, the same objects each time.
 *
 * `repo-stash`: the repository a successful build ends with is kept in `repoStash` (a parameter of
 * the worker's code, elm-worker.ts), and an incremental build asked to reuse it
 * (`repoStash.plan`) starts from its modules instead of decoding the kept modules' IR: the
 * distribution it hands to `Repo.fromDistribution` is the input's (package name, dependencies)
 * with the modules the plan names, taken from the kept repository with the access the plan gives
 * them, the same values the decoder would build from their IR (the frontend sends a plan only when
 * the baseline's IR of every kept module equals what that build returned for it). It does not
 * insert them again (what `Repo.fromDistribution` would do, a third of a one-module compile): it
 * takes the kept repository's modules and its three dependency DAGs (modules, types, values) cut
 * down to the nodes the kept modules own, with their edges, and the targets of those edges as
 * empty nodes: what inserting the kept modules builds, while the nodes of the modules compiled
 * again, removed or left unused (which `Repo.deleteModule` leaves behind) go. The package name,
 * dependencies and native functions are those of a repository built from no modules.
 * `repoStash.check`, set by tests, gets this repository and a rebuild to compare
 * (repo-stash.test.ts: every field equal, over edits, a removal, an interface change). The
 * repository a build started from is remembered with what it was built from (`repoStash.rebuilt`):
 * a next build that keeps the same modules (the same names, access and definition objects: the
 * same module edited again) with the same package name and dependencies starts from it, since
 * `Repo.fromDistribution` would build the same value again. While a build's
 * result is encoded, each module definition's JSON is remembered per definition (a WeakMap: an
 * Elm value never changes, so the same definition encodes the same), so the modules a build took
 * over unchanged are not encoded again.
 *
 * `used-changes`: before a build applies its changed modules, it keeps those the exposed modules
 * use: it inserted the changed modules' imports into the module DAG, then walked the DAG once per
 * exposed module, wrote each walk's set as text for `Debug.log` and united the sets (on the
 * 60-module model, about a quarter of a one-module incremental compile in the sandbox). The
 * replacement inserts the same imports with the same checked insertion, finds the same set with
 * one walk (`$mep$usedModules`, as `used-modules`), and hands the same filtered changes to the same
 * next step; a cycle among the imports is left to the original, which reports it as before.
 *
 * None of them changes the IR (the parity tests and elm-worker.test.ts compare with the unedited
 * compiler).
 */
import type { ElmPatch } from './elm-patches.ts';

/** Applied after the edits of elm-patches.ts, in this order. */
export const SESSION_PATCHES: readonly ElmPatch[] = [
  {
    name: 'topological-levels',
    before: 'var $elm$core$Dict$singleton = F2(',
    code: `$author$project$Morphir$Dependency$DAG$backwardTopologicalOrdering = (function (levelByLevel) {
  return function (dag) {
    var nodes = _List_toArray($elm$core$Dict$toList(dag.a));
    var index = $elm$core$Dict$empty;
    for (var i = 0; i < nodes.length; i++) index = A3($elm$core$Dict$insert, nodes[i].a, i, index);
    var targets = [], incoming = [];
    for (var i = 0; i < nodes.length; i++) { targets.push([]); incoming.push(0); }
    for (var i = 0; i < nodes.length; i++) {
      for (var to = _List_toArray($elm$core$Set$toList(nodes[i].b)), j = 0; j < to.length; j++) {
        var found = A2($elm$core$Dict$get, to[j], index);
        // A node's edge to itself is not one (the original removes it first).
        if (found.$ === 'Just' && found.a !== i) { targets[i].push(found.a); incoming[found.a]++; }
      }
    }
    var left = nodes.length, done = [], order = _List_Nil;
    for (var i = 0; i < nodes.length; i++) done.push(false);
    while (left > 0) {
      var level = [];
      for (var i = 0; i < nodes.length; i++) if (!done[i] && incoming[i] === 0) level.push(i);
      if (level.length === 0) return levelByLevel(dag);
      var names = [];
      for (var k = 0; k < level.length; k++) {
        var n = level[k];
        done[n] = true;
        left--;
        names.push(nodes[n].a);
        for (var t = 0; t < targets[n].length; t++) incoming[targets[n][t]]--;
      }
      order = A2($elm$core$List$cons, _List_fromArray(names), order);
    }
    return order;
  };
})($author$project$Morphir$Dependency$DAG$backwardTopologicalOrdering);
`,
  },
  {
    name: 'reference-memo',
    before: 'var $author$project$Morphir$IR$Package$modulesOrderedByDependency = F2(',
    code: `(function () {
  var remembered = function (compute) {
    var known = new WeakMap(), inside = false;
    return function (value) {
      if (inside || typeof value !== 'object' || value === null) return compute(value);
      var refs = known.get(value);
      if (refs !== undefined) return refs;
      inside = true;
      try {
        refs = compute(value);
      } finally {
        inside = false;
      }
      known.set(value, refs);
      return refs;
    };
  };
  $author$project$Morphir$IR$Value$collectReferences = remembered($author$project$Morphir$IR$Value$collectReferences);
  $author$project$Morphir$IR$Type$collectReferencesFromDefintion = remembered($author$project$Morphir$IR$Type$collectReferencesFromDefintion);
  $author$project$Morphir$IR$Module$dependsOnModules = remembered($author$project$Morphir$IR$Module$dependsOnModules);
})();
`,
  },
  {
    name: 'repo-stash',
    before: "var $author$project$Morphir$Elm$CLI$statsResult = _Platform_outgoingPort('statsResult', $elm$core$Basics$identity);",
    code: `(function (fromDistribution, returnDistribution, encodeModule) {
  var encoded = new WeakMap(), encoding = false;
  var pathKey = function (path) { return JSON.stringify(_List_toArray(path).map(_List_toArray)); };
  // The same module names, each with the same access and the very same definition (an Elm value never changes).
  var sameModules = function (a, b) {
    var x = _List_toArray($elm$core$Dict$toList(a)), y = _List_toArray($elm$core$Dict$toList(b));
    if (x.length !== y.length) return false;
    for (var i = 0; i < x.length; i++) {
      if (x[i].b.value !== y[i].b.value || x[i].b.access.$ !== y[i].b.access.$ || !_Utils_eq(x[i].a, y[i].a)) return false;
    }
    return true;
  };
  $author$project$Morphir$IR$Repo$fromDistribution = function (distro) {
    var plan = repoStash.plan;
    repoStash.plan = undefined;
    if (!plan) return fromDistribution(distro);
    var kept = A3($elm$core$Dict$foldl, F3(function (name, ac, out) {
      var access = plan.access[pathKey(name)];
      if (access === undefined) return out;
      var level = access === 'Public' ? $author$project$Morphir$IR$AccessControlled$Public : $author$project$Morphir$IR$AccessControlled$Private;
      return A3($elm$core$Dict$insert, name, A2($author$project$Morphir$IR$AccessControlled$AccessControlled, level, ac.value), out);
    }), $elm$core$Dict$empty, plan.repo.a.modules);
    var last = repoStash.rebuilt;
    if (last && _Utils_eq(last.name, distro.a) && _Utils_eq(last.dependencies, distro.b) && sameModules(last.kept, kept)) return last.repo;
    var rebuild = function () { return fromDistribution(A3($author$project$Morphir$IR$Distribution$Library, distro.a, distro.b, _Utils_update(distro.c, { modules: kept }))); };
    var repo = trimmed(fromDistribution(A3($author$project$Morphir$IR$Distribution$Library, distro.a, distro.b, _Utils_update(distro.c, { modules: $elm$core$Dict$empty }))), plan.repo.a, kept);
    if (repoStash.check) repoStash.check(repo, rebuild());
    repoStash.rebuilt = { name: distro.a, dependencies: distro.b, kept: kept, repo: repo };
    return repo;
  };
  // A dependency DAG of the kept repository cut down to what inserting the kept modules builds:
  // the nodes they own with their edges, and each target of those edges (an empty node when no
  // kept module owns it). The kept repository's other nodes (of the modules compiled again, of
  // removed or unused ones) go, with their edges.
  var trimDag = function (dag, owned) {
    var out = A3($elm$core$Dict$foldl, F3(function (node, to, acc) { return owned(node) ? A3($elm$core$Dict$insert, node, to, acc) : acc; }), $elm$core$Dict$empty, dag.a);
    var addTarget = F2(function (target, acc) { return A2($elm$core$Dict$member, target, acc) ? acc : A3($elm$core$Dict$insert, target, $elm$core$Set$empty, acc); });
    out = A3($elm$core$Dict$foldl, F3(function (node, to, acc) { return A3($elm$core$Set$foldl, addTarget, acc, to); }), out, out);
    return $author$project$Morphir$Dependency$DAG$DAG(out);
  };
  // The repository Repo.fromDistribution builds from the kept modules, from the package and
  // dependencies of \`base\` (built with no modules) and the kept repository \`old\`: the kept
  // modules, and its dependency DAGs trimmed to them.
  var trimmed = function (base, old, kept) {
    if (base.$ !== 'Ok') return base;
    var r = base.a.a, pkg = r.packageName;
    var ownModule = function (name) { return A2($elm$core$Dict$member, name, kept); };
    var ownFQName = function (fqn) { return _Utils_eq(fqn.a, pkg) && A2($elm$core$Dict$member, fqn.b, kept); };
    return $elm$core$Result$Ok($author$project$Morphir$IR$Repo$Repo(_Utils_update(r, {
      modules: kept,
      moduleDependencies: trimDag(old.moduleDependencies, ownModule),
      typeDependencies: trimDag(old.typeDependencies, ownFQName),
      valueDependencies: trimDag(old.valueDependencies, ownFQName),
    })));
  };
  $author$project$Morphir$Elm$CLI$returnDistribution = function (repoResult) {
    repoStash.repo = repoResult.$ === 'Ok' ? repoResult.a : undefined;
    encoding = true;
    try {
      return returnDistribution(repoResult);
    } finally {
      encoding = false;
    }
  };
  $author$project$Morphir$IR$Module$Codec$encodeDefinition = F3(function (encodeTypeAttributes, encodeValueAttributes, def) {
    if (!encoding) return A3(encodeModule, encodeTypeAttributes, encodeValueAttributes, def);
    var json = encoded.get(def);
    if (json === undefined) {
      json = A3(encodeModule, encodeTypeAttributes, encodeValueAttributes, def);
      encoded.set(def, json);
    }
    return json;
  });
})($author$project$Morphir$IR$Repo$fromDistribution, $author$project$Morphir$Elm$CLI$returnDistribution, $author$project$Morphir$IR$Module$Codec$encodeDefinition);
`,
  },
  {
    name: 'used-modules',
    before: 'var $author$project$Morphir$IR$Repo$updateModuleAccess = F3(',
    code: `var $mep$usedModules = F2(function (exposedModules, dag) {
  var edges = dag.a, used = exposedModules, pending = [];
  var enqueue = F2(function (node, count) { pending.push(node); return count + 1; });
  var successors = function (node) { A3($elm$core$Set$foldl, enqueue, 0, A2($elm$core$Maybe$withDefault, $elm$core$Set$empty, A2($elm$core$Dict$get, node, edges))); };
  A3($elm$core$Set$foldl, F2(function (node, count) { successors(node); return count; }), 0, exposedModules);
  while (pending.length > 0) {
    var node = pending.pop();
    if (!A2($elm$core$Set$member, node, used)) { used = A2($elm$core$Set$insert, node, used); successors(node); }
  }
  return used;
});
$author$project$Morphir$IR$Repo$removeUnusedModules = F2(function (exposedModules, repo) {
  var used = A2($mep$usedModules, exposedModules, $author$project$Morphir$IR$Repo$moduleDependencies(repo));
  var unused = A2($elm$core$List$filter, function (name) { return !A2($elm$core$Set$member, name, used); }, $elm$core$Dict$keys($author$project$Morphir$IR$Repo$modules(repo)));
  return A3($elm$core$List$foldl, F2(function (name, result) { return A2($elm$core$Result$andThen, $author$project$Morphir$IR$Repo$deleteModule(name), result); }), $elm$core$Result$Ok(repo), unused);
});
`,
  },
  {
    name: 'used-changes',
    before: 'var $author$project$Morphir$Stats$Backend$incrementOrAdd = F2(',
    code: `$author$project$Morphir$Elm$IncrementalFrontend$applyFileChanges = (function (original) {
  return F5(function (packageName, fileChanges, opts, maybeExposed, repo) {
    if (maybeExposed.$ !== 'Just' || $elm$core$Set$isEmpty(maybeExposed.a)) return A5(original, packageName, fileChanges, opts, maybeExposed, repo);
    var dag = $elm$core$Result$Ok($author$project$Morphir$IR$Repo$moduleDependencies(repo));
    for (var changes = _List_toArray(fileChanges), i = 0; i < changes.length && dag.$ === 'Ok'; i++) {
      var change = changes[i];
      if (change.$ !== 'ModuleInsert' && change.$ !== 'ModuleUpdate') continue;
      var imported = A2($elm$core$List$filterMap, function (imp) { return A2($author$project$Morphir$Elm$ModuleName$toIRModuleName, packageName, $stil4m$elm_syntax$Elm$Syntax$Node$value(imp.moduleName)); }, $author$project$Morphir$Elm$ParsedModule$imports(change.b));
      dag = A3($author$project$Morphir$Dependency$DAG$insertNode, change.a, $elm$core$Set$fromList(imported), dag.a);
    }
    if (dag.$ !== 'Ok') return A5(original, packageName, fileChanges, opts, maybeExposed, repo);
    var used = A2($mep$usedModules, maybeExposed.a, dag.a);
    var kept = A2($elm$core$List$filter, function (change) { return A2($elm$core$Set$member, change.a, used); }, fileChanges);
    return A4($author$project$Morphir$Elm$IncrementalFrontend$applyChangesByOrder, kept, opts, maybeExposed.a, repo);
  });
})($author$project$Morphir$Elm$IncrementalFrontend$applyFileChanges);
`,
  },
];
