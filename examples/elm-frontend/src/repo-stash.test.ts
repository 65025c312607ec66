import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompileAnswer, NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import type { CompileBaseline, CompileResult } from '../../../host/src/protocol/index.ts';
import { nextBaseline } from '../../../host/src/project/compile-baseline.ts';
import { canonicalJson } from '../testing/morphir-elm-make.ts';
import { compileElm } from './compile.ts';
import { createElmWorker, type ElmWorker, type ElmWorkerCode } from './elm-worker.ts';
import { QUIET, recordingContext, workerCode } from './testing.ts';
import { createTimerQueue } from './timer-queue.ts';

// Base ← Mid ← Top ← Leaf (Leaf also uses Base), and Spare, which nothing exposed uses.
const SOURCES: Record<string, string> = {
  'Acme/Base.elm': 'module Acme.Base exposing (Money, Line, zero, one)\n\ntype alias Money =\n    Int\n\n\ntype alias Line =\n    { qty : Int, price : Money }\n\n\nzero : Money\nzero =\n    0\n\n\none : Money\none =\n    1\n',
  'Acme/Mid.elm': 'module Acme.Mid exposing (line, total)\n\nimport Acme.Base exposing (Line, Money)\n\n\nline : Int -> Line\nline n =\n    { qty = n, price = Acme.Base.one }\n\n\ntotal : List Line -> Money\ntotal lines =\n    List.sum (List.map (\\l -> l.qty * l.price) lines)\n',
  'Acme/Top.elm': 'module Acme.Top exposing (amount)\n\nimport Acme.Mid\n\n\namount : Int\namount =\n    (Acme.Mid.line 3).qty + Acme.Mid.total [ Acme.Mid.line 1 ]\n',
  'Acme/Leaf.elm': 'module Acme.Leaf exposing (twice)\n\nimport Acme.Base\nimport Acme.Top\n\n\ntwice : Int\ntwice =\n    Acme.Top.amount * 2 + Acme.Base.zero\n',
  'Acme/Spare.elm': 'module Acme.Spare exposing (s)\n\nimport Acme.Base\n\n\ns : Int\ns =\n    Acme.Base.zero\n',
};

type Elm = { $?: string | number; [k: string]: unknown };

/** An Elm value as plain JSON, each Dict (and so each Set) as its entries in key order, whatever its tree's shape. */
function plain(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Elm;
  if (v.$ === 'RBNode_elm_builtin' || v.$ === 'RBEmpty_elm_builtin') {
    const entries: unknown[] = [];
    const walk = (n: Elm): void => {
      if (n.$ !== 'RBNode_elm_builtin') return;
      walk(n.d as Elm);
      entries.push([plain(n.b), plain(n.c)]);
      walk(n.e as Elm);
    };
    walk(v);
    return { dict: entries };
  }
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
}

const request = (sources: Record<string, string>, baseline: CompileBaseline | undefined, exposedModules?: string[]): NormalizedCompileParams => ({
  languageId: 'elm',
  sources: { root: 'file:///w/src/', documents: Object.entries(sources).map(([path, text]) => ({ uri: `file:///w/src/${path}`, languageId: 'elm', version: 1, text })) },
  package: { name: 'Acme', ...(exposedModules ? { exposedModules } : {}) },
  ...(baseline ? { baseline } : {}),
});

/**
 * A worker whose incremental builds also rebuild their starting repository from the kept
 * modules (`repoStash.check`): each start is compared with that rebuild, every field of the
 * repository, the dependency DAGs included.
 */
function checkedWorker(): { worker: ElmWorker; checks: { same: boolean; field?: string }[] } {
  const code = workerCode();
  const checks: { same: boolean; field?: string }[] = [];
  const spy: ElmWorkerCode = function (this: ThisParameterType<ElmWorkerCode>, ...args: Parameters<ElmWorkerCode>) {
    args[4].check = (started, rebuilt) => {
      // Each is Ok (Repo record).
      const a = plain(started) as { $: string; a: { a: Record<string, unknown> } };
      const b = plain(rebuilt) as { $: string; a: { a: Record<string, unknown> } };
      if (a.$ !== 'Ok' || b.$ !== 'Ok') return void checks.push({ same: false, field: `${a.$}/${b.$}` });
      const field = Object.keys({ ...a.a.a, ...b.a.a }).find((k) => JSON.stringify(a.a.a[k]) !== JSON.stringify(b.a.a[k]));
      checks.push(field === undefined ? { same: true } : { same: false, field });
    };
    return code.apply(this, args);
  };
  return { worker: createElmWorker(spy, createTimerQueue(), QUIET), checks };
}

const compileOn = (worker: ElmWorker, params: NormalizedCompileParams): CompileResult => {
  const answer = compileElm(params, worker, recordingContext()) as CompileAnswer;
  return { success: answer.success ?? true, modules: answer.modules ?? [], diagnostics: [], ...answer } as CompileResult;
};
const full = (sources: Record<string, string>, exposed?: string[]): CompileResult => compileOn(createElmWorker(workerCode(), createTimerQueue(), QUIET), request(sources, undefined, exposed));

const Stash = suite('elm-frontend: the repository an incremental build starts from equals a rebuild from the kept modules');

const edits: [string, (s: Record<string, string>) => Record<string, string>][] = [
  ['a leaf edited', (s) => ({ ...s, 'Acme/Leaf.elm': s['Acme/Leaf.elm'].replace('* 2', '* 3') })],
  ['a module others use edited (body)', (s) => ({ ...s, 'Acme/Mid.elm': s['Acme/Mid.elm'].replace('qty = n,', 'qty = n + 1,') })],
  ['a value others use dropped, a reference dropped', (s) => ({ ...s, 'Acme/Base.elm': s['Acme/Base.elm'].replace(', one)', ', one, two)').replace('one =\n    1\n', 'one =\n    1\n\n\ntwo : Money\ntwo =\n    2\n'), 'Acme/Mid.elm': s['Acme/Mid.elm'].replace('price = Acme.Base.one', 'price = Acme.Base.two') })],
  ['an interface changed (dependents compiled in a second build)', (s) => ({ ...s, 'Acme/Base.elm': s['Acme/Base.elm'].replace('{ qty : Int, price : Money }', '{ qty : Int, price : Money, note : String }'), 'Acme/Mid.elm': s['Acme/Mid.elm'].replace('price = Acme.Base.two }', 'price = Acme.Base.two, note = "" }') })],
  ['a module added', (s) => ({ ...s, 'Acme/Extra.elm': 'module Acme.Extra exposing (e)\n\nimport Acme.Mid\n\n\ne : Int\ne =\n    Acme.Mid.total []\n' })],
  ['a module removed', (s) => Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'Acme/Spare.elm'))],
];

for (const exposed of [undefined, ['Leaf']]) {
  Stash(`should start each incremental build from what a rebuild gives, and equal a full compile (exposed: ${exposed?.join(',') ?? 'all'})`, () => {
    const { worker, checks } = checkedWorker();
    let sources = SOURCES;
    let baseline = nextBaseline(undefined, compileOn(worker, request(sources, undefined, exposed)));
    for (const [what, change] of edits) {
      sources = change(sources);
      const before = checks.length;
      const result = compileOn(worker, request(sources, baseline, exposed));
      assert.ok(result.success, `${what}: ${JSON.stringify(result.diagnostics)}`);
      assert.equal(checks.slice(before).filter((c) => !c.same), [], what);
      assert.is(canonicalJson(result.ir), canonicalJson(full(sources, exposed).ir), `${what}: the IR equals a full compile's`);
      baseline = nextBaseline(baseline, result);
    }
    // Each edit but the last (nothing left to compile when an unused module goes) started from the kept repository.
    assert.ok(checks.length >= edits.length - 1, `${checks.length} builds started from the kept repository`);
  });
}

Stash.run();
