import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileElmWorker, createElmWorker, type ElmBuildInput, type ElmBuildOutcome, type ElmWorkerCode } from './elm-worker.ts';
import { ELM_PATCHES, MORPHIR_ELM_VERSION, patchElmWorker } from './elm-patches.ts';
import { installedWorkerSource, QUIET, sharedWorker, workerCode } from './testing.ts';
import { createTimerQueue } from './timer-queue.ts';

const input = (files: Record<string, string>, exposedModules?: string[]): ElmBuildInput => ({
  options: { typesOnly: false },
  packageInfo: exposedModules ? { name: 'Acme.Shop', exposedModules } : { name: 'Acme.Shop' },
  dependencies: [],
  fileSnapshot: files,
});
const money = 'module Acme.Shop.Money exposing (Money, zero)\n\ntype alias Money =\n    Int\n\n\nzero : Money\nzero =\n    0\n';
const cycle = 'module Acme.Shop.Cycle exposing (A, B)\n\ntype alias A =\n    { b : B }\n\n\ntype alias B =\n    { a : A }\n';

const built = (o: ElmBuildOutcome): Record<string, unknown> => {
  assert.is(o.kind, 'built', JSON.stringify(o).slice(0, 400));
  return (o as { distribution: Record<string, unknown> }).distribution;
};

const Worker = suite('createElmWorker');

Worker('should build a package and report the build phases as progress', () => {
  const progress: string[] = [];
  const ir = built(sharedWorker().build(input({ 'Acme/Shop/Money.elm': money }), (m) => progress.push(m)) as ElmBuildOutcome);
  assert.is(ir.formatVersion, 3);
  assert.equal((ir.distribution as unknown[])[1], [['acme'], ['shop']]);
  assert.ok(progress.some((m) => m.startsWith('Building from scratch')), progress.join('|'));
});

Worker('should answer a source error with the compiler\'s errors, and build again afterwards', () => {
  const worker = sharedWorker();
  const failed = worker.build(input({ 'Acme/Shop/Money.elm': 'module Acme.Shop.Money exposing (x)\n\nx =\n' })) as ElmBuildOutcome;
  assert.is(failed.kind, 'failed');
  assert.is(((failed as { errors: unknown[][] }).errors[0] as unknown[])[0], 'ParserError');
  built(worker.build(input({ 'Acme/Shop/Money.elm': money })) as ElmBuildOutcome);
});

Worker('should answer input the compiler cannot decode as rejected', () => {
  const outcome = sharedWorker().build({ ...input({}), packageInfo: 42 } as never) as ElmBuildOutcome;
  assert.is(outcome.kind, 'rejected');
});

const billing = 'module Acme.Shop.Billing exposing (Invoice, total)\n\nimport Acme.Shop.Money exposing (Money)\n\n\ntype alias Invoice =\n    { amount : Money, lines : List Line }\n\n\ntype alias Line =\n    { price : Money }\n\n\ntotal : Invoice -> Money\ntotal invoice =\n    List.foldl (\\l sum -> l.price + sum) invoice.amount invoice.lines\n';
// What the parse edits touch (elm-patches-parse.ts): chars (one and two code units) compared as the
// parser reads them, nested comments and the grammar's recursive rules (lazy parsers).
const lexical = 'module Acme.Shop.Lexical exposing (classify, nested)\n\n{- a {- nested -} comment -}\n\n\nclassify : Char -> String\nclassify c =\n    case c of\n        \'a\' ->\n            "first"\n\n        \'😀\' ->\n            "smile \\u{1F600}"\n\n        _ ->\n            if c == \'\\n\' then\n                "newline"\n\n            else\n                String.fromChar c ++ "?"\n\n\nnested : List (Maybe ( Int, String )) -> Int\nnested xs =\n    -- a line comment\n    List.foldl (\\x n -> case x of\n        Just ( i, _ ) ->\n            n + (i * 2 - 1)\n\n        Nothing ->\n            n\n    ) 0 xs\n';
const generic = 'module Acme.Shop.Generic exposing (apply, selfApply)\n\n\napply : (a -> b) -> a -> b\napply f x =\n    f x\n\n\nselfApply f =\n    f f\n';

Worker('should give the IR and the errors of the unedited compiler (every edit of elm-patches.ts)', () => {
  const { source } = installedWorkerSource();
  const unedited = new Function('setTimeout', 'clearTimeout', 'console', source) as ElmWorkerCode;
  const plain = createElmWorker(unedited, createTimerQueue(), QUIET);
  const edited = sharedWorker();
  const cases: [Record<string, string>, string[] | undefined][] = [
    [{ 'Acme/Shop/Money.elm': money }, undefined],
    // A type cycle (the DAG's reachability), a type used before its declaration (an insertion that
    // is not fresh), a module made public by an exposed one (implicit exposure), own-package look-ups.
    [{ 'Acme/Shop/Cycle.elm': cycle }, undefined],
    [{ 'Acme/Shop/Money.elm': money, 'Acme/Shop/Billing.elm': billing }, ['Billing']],
    // Type variables in constraints, and a recursive one (x applied to itself).
    [{ 'Acme/Shop/Generic.elm': generic }, undefined],
    [{ 'Acme/Shop/Lexical.elm': lexical }, undefined],
    [{ 'Acme/Shop/Generic.elm': generic.replace(/\n\n\nselfApply[\s\S]*$/, '\n').replace(', selfApply', '') }, undefined],
  ];
  for (const [files, exposed] of cases) {
    assert.equal(edited.build(input(files, exposed)), plain.build(input(files, exposed)), Object.keys(files).join(', '));
  }
  assert.match(JSON.stringify(edited.build(input({ 'Acme/Shop/Generic.elm': generic }))), /RecursiveConstraint|recursive/i);
  assert.match(JSON.stringify(built(edited.build(input({ 'Acme/Shop/Lexical.elm': lexical })) as ElmBuildOutcome)), /"CharLiteral".*😀/);
  const shop = built(edited.build(input({ 'Acme/Shop/Money.elm': money, 'Acme/Shop/Billing.elm': billing }, ['Billing'])) as ElmBuildOutcome);
  assert.match(JSON.stringify(shop), /\[\["money"\]\],\{"access":"Public"/);
  const cyclic = edited.build(input({ 'Acme/Shop/Cycle.elm': cycle })) as ElmBuildOutcome;
  assert.is(cyclic.kind, 'failed', 'a type alias cycle is an error');
  assert.match(JSON.stringify(cyclic), /CycleDetected/);
});

Worker('should run on a platform\'s own timers, answering with a promise', async () => {
  const worker = createElmWorker(workerCode(), { setTimeout: (f, ms, ...a) => setTimeout(f, ms, ...a) as unknown as number, clearTimeout: (id) => clearTimeout(id as never) }, QUIET);
  const pending = worker.build(input({ 'Acme/Shop/Money.elm': money }));
  assert.instance(pending, Promise);
  built(await pending);
});

Worker('should start a fresh Elm runtime after the compiler threw', () => {
  let throws = true;
  const console = {
    ...QUIET,
    log: () => {
      if (throws) {
        throws = false;
        throw new Error('console broke');
      }
    },
  };
  const worker = createElmWorker(workerCode(), createTimerQueue(), console);
  assert.throws(() => worker.build(input({ 'Acme/Shop/Money.elm': money })), /console broke/);
  built(worker.build(input({ 'Acme/Shop/Money.elm': money })) as ElmBuildOutcome);
});

Worker('should throw when the runtime stops without answering', () => {
  const worker = createElmWorker(workerCode(), { setTimeout: () => 0, clearTimeout: () => undefined, runUntil: () => undefined }, QUIET);
  assert.throws(() => worker.build(input({ 'Acme/Shop/Money.elm': money })), /without answering/);
});

const Patches = suite('patchElmWorker');

Patches('should insert each edit once, before its anchor line', () => {
  const { source, version } = installedWorkerSource();
  assert.is(version, MORPHIR_ELM_VERSION);
  const patched = patchElmWorker(source, version);
  for (const p of ELM_PATCHES) {
    assert.is(patched.split(p.code + p.before).length, 2, p.name);
  }
  assert.is(patched.length, source.length + ELM_PATCHES.reduce((n, p) => n + p.code.length, 0));
});

Patches('should refuse another morphir-elm version, a missing anchor and a repeated one', () => {
  const { source } = installedWorkerSource();
  assert.throws(() => patchElmWorker(source, '2.83.0'), /morphir-elm 2\.82\.0/);
  assert.throws(() => patchElmWorker('var x = 1;', MORPHIR_ELM_VERSION), /forward-reachability.*found 0/);
  const anchor = ELM_PATCHES[0].before;
  assert.throws(() => patchElmWorker(`${anchor}\n${anchor}`, MORPHIR_ELM_VERSION), /found 2/);
  assert.throws(() => compileElmWorker('var x = 1;', MORPHIR_ELM_VERSION), /forward-reachability/);
});

type DagProbe = {
  order(dag: unknown): unknown;
  dict(entries: unknown): unknown;
  set(members: unknown): unknown;
  list(items: unknown[]): unknown;
  toArray(list: unknown): unknown[];
  tuple(a: unknown, b: unknown): unknown;
  /** The edited worker's used-modules walk (undefined in the unedited one). */
  used?(exposed: unknown, dag: unknown): unknown;
  /** What the unedited `removeUnusedModules` keeps: the exposed modules and a walk from each, united. */
  usedPerModule(exposed: unknown, dag: unknown): unknown;
  setList(set: unknown): unknown;
};

/** morphir-elm's DAG ordering in a runtime of `source` (edited or not), and what it takes to build a DAG there. */
function dagProbe(source: string): DagProbe {
  const anchor = "_Platform_export({'Morphir'";
  const exported =
    'scope.probe = { order: function (d) { return $author$project$Morphir$Dependency$DAG$backwardTopologicalOrdering(d); }, dict: $elm$core$Dict$fromList, set: $elm$core$Set$fromList, list: _List_fromArray, toArray: _List_toArray, tuple: _Utils_Tuple2, setList: $elm$core$Set$toList, ' +
    "used: typeof $mep$usedModules === 'undefined' ? undefined : function (e, d) { return A2($mep$usedModules, e, d); }, " +
    'usedPerModule: function (e, d) { return A3($elm$core$List$foldl, F2(function (m, s) { return A2($elm$core$Set$union, s, A2($author$project$Morphir$Dependency$DAG$collectForwardReachableNodes, m, d)); }), e, $elm$core$Set$toList(e)); } };\n';
  assert.is(source.split(anchor).length, 2);
  const scope: { probe?: DagProbe } = {};
  (new Function('setTimeout', 'clearTimeout', 'console', 'moduleStep', 'repoStash', source.replace(anchor, exported + anchor)) as ElmWorkerCode).call(scope as never, () => 0, () => undefined, QUIET, () => undefined, {});
  return scope.probe!;
}

Patches('should order a DAG by levels as the unedited compiler does (topological-levels)', () => {
  const { source, version } = installedWorkerSource();
  const plain = dagProbe(source);
  const edited = dagProbe(patchElmWorker(source, version));
  let seed = 35;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 40; round++) {
    // Nodes named like module paths, ranked at random: an edge goes from a higher rank to a lower
    // one (acyclic), plus edges to a node's self and to names that are not nodes.
    const count = 1 + random(40);
    const names = Array.from({ length: count }, (_, i) => [`m${random(1000)}`, `n${i}`]);
    const edges = names.map((_, i) => {
      const to: string[][] = [];
      for (let j = 0; j < i; j++) if (random(4) === 0) to.push(names[j]);
      if (random(8) === 0) to.push(names[i]);
      if (random(8) === 0) to.push(['outside', `x${random(5)}`]);
      return to;
    });
    const run = (p: DagProbe): unknown => {
      const path = (n: string[]): unknown => p.list([p.list([n[0]]), p.list([n[1]])]);
      const dag = { $: 'DAG', a: p.dict(p.list(names.map((n, i) => p.tuple(path(n), p.set(p.list(edges[i].map(path))))))) };
      return p.toArray(p.order(dag)).map((level) => p.toArray(level).map((n) => p.toArray(n).map((w) => p.toArray(w))));
    };
    assert.equal(run(edited), run(plain), `round ${round}`);
  }
  assert.equal(edited.toArray(edited.order({ $: 'DAG', a: edited.dict(edited.list([])) })), []);
});

Patches('should keep the modules the unedited compiler keeps: the exposed ones and all they reach (used-modules)', () => {
  const { source, version } = installedWorkerSource();
  const plain = dagProbe(source);
  const edited = dagProbe(patchElmWorker(source, version));
  assert.ok(edited.used && !plain.used);
  let seed = 36;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 40; round++) {
    // Module paths with edges in both directions (cycles too), some to names that are not nodes.
    const count = 1 + random(30);
    const names = Array.from({ length: count }, (_, i) => [`m${random(1000)}`, `n${i}`]);
    const edges = names.map(() => {
      const to: string[][] = [];
      for (let j = 0; j < count; j++) if (random(6) === 0) to.push(names[j]);
      if (random(8) === 0) to.push(['outside', `x${random(5)}`]);
      return to;
    });
    const exposed = names.filter(() => random(3) === 0);
    if (random(4) === 0) exposed.push(['outside', 'y']);
    const run = (p: DagProbe, used: (e: unknown, d: unknown) => unknown): unknown => {
      const path = (n: string[]): unknown => p.list([p.list([n[0]]), p.list([n[1]])]);
      const dag = { $: 'DAG', a: p.dict(p.list(names.map((n, i) => p.tuple(path(n), p.set(p.list(edges[i].map(path))))))) };
      return p.toArray(p.setList(used(p.set(p.list(exposed.map(path))), dag))).map((n) => p.toArray(n).map((w) => p.toArray(w)));
    };
    assert.equal(run(edited, edited.used!), run(plain, plain.usedPerModule), `round ${round}`);
  }
});

Patches('should walk the module DAG once for the changes a build applies, not once per exposed module (used-changes)', () => {
  const logged = (code: ElmWorkerCode): { lines: string[]; outcome: ElmBuildOutcome } => {
    const lines: string[] = [];
    const worker = createElmWorker(code, createTimerQueue(), { ...QUIET, log: (m) => void lines.push(m) });
    return { lines, outcome: worker.build(input({ 'Acme/Shop/Money.elm': money, 'Acme/Shop/Billing.elm': billing }, ['Billing', 'Money'])) as ElmBuildOutcome };
  };
  const { source } = installedWorkerSource();
  const plain = logged(new Function('setTimeout', 'clearTimeout', 'console', source) as ElmWorkerCode);
  const edited = logged(workerCode());
  const perExposed = (lines: string[]) => lines.filter((l) => l.startsWith('DAG.collectForwardReachableNodes exposedModule')).length;
  assert.is(perExposed(plain.lines), 2, plain.lines.join('\n').slice(0, 400));
  assert.is(perExposed(edited.lines), 0);
  assert.equal(edited.outcome, plain.outcome);
  // A cycle between the modules the build inserts: the unedited compiler's error.
  const a = 'module Acme.Shop.A exposing (a)\n\nimport Acme.Shop.B\n\na =\n    1\n';
  const b = 'module Acme.Shop.B exposing (b)\n\nimport Acme.Shop.A\n\nb =\n    2\n';
  const cyclic = (code: ElmWorkerCode) => createElmWorker(code, createTimerQueue(), QUIET).build(input({ 'Acme/Shop/A.elm': a, 'Acme/Shop/B.elm': b }, ['A']));
  assert.equal(cyclic(workerCode()), cyclic(new Function('setTimeout', 'clearTimeout', 'console', source) as ElmWorkerCode));
});

Worker.run();
Patches.run();
