import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompileAnswer, NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import type { CompileBaseline, CompileResult } from '../../../host/src/protocol/index.ts';
import { nextBaseline } from '../../../host/src/project/compile-baseline.ts';
import { canonicalJson } from '../testing/morphir-elm-make.ts';
import { compileElm } from './compile.ts';
import { createElmWorker, type ElmBuildOutcome, type ElmWorker, type ElmWorkerCode } from './elm-worker.ts';
import { QUIET, recordingContext, sharedWorker, workerCode } from './testing.ts';
import { createTimerQueue } from './timer-queue.ts';
import { irModules } from './visibility.ts';

// A package whose modules form a chain: Top uses Base's record through Mid without importing Base.
const SOURCES: Record<string, string> = {
  'Acme/Base.elm': 'module Acme.Base exposing (Money, Line, zero)\n\ntype alias Money =\n    Int\n\n\ntype alias Line =\n    { qty : Int, price : Money }\n\n\nzero : Money\nzero =\n    0\n',
  'Acme/Mid.elm': 'module Acme.Mid exposing (line, total)\n\nimport Acme.Base exposing (Line, Money)\n\n\nline : Int -> Line\nline n =\n    { qty = n, price = 2 }\n\n\ntotal : List Line -> Money\ntotal lines =\n    List.sum (List.map (\\l -> l.qty * l.price) lines)\n',
  'Acme/Top.elm': 'module Acme.Top exposing (amount)\n\nimport Acme.Mid\n\n\namount : Int\namount =\n    (Acme.Mid.line 3).qty + Acme.Mid.total [ Acme.Mid.line 1 ]\n',
  'Acme/Leaf.elm': 'module Acme.Leaf exposing (twice)\n\nimport Acme.Top\n\n\ntwice : Int\ntwice =\n    Acme.Top.amount * 2\n',
};

const request = (sources: Record<string, string>, baseline?: CompileBaseline, options?: NormalizedCompileParams['options']): NormalizedCompileParams => ({
  languageId: 'elm',
  sources: { root: 'file:///w/src/', documents: Object.entries(sources).map(([path, text]) => ({ uri: `file:///w/src/${path}`, languageId: 'elm', version: 1, text })) },
  package: { name: 'Acme' },
  ...(options ? { options } : {}),
  ...(baseline ? { baseline } : {}),
});
const compile = (params: NormalizedCompileParams): CompileResult => {
  const answer = compileElm(params, sharedWorker(), recordingContext()) as CompileAnswer;
  return { success: answer.success ?? true, modules: answer.modules ?? [], diagnostics: [], ...answer } as CompileResult;
};
const statuses = (result: CompileResult) => Object.fromEntries((result.moduleResults ?? []).map((r) => [r.name, r.status]));
const edit = (path: string, from: string, to: string): Record<string, string> => {
  assert.ok(SOURCES[path].includes(from), `${path} has ${from}`);
  return { ...SOURCES, [path]: SOURCES[path].replace(from, to) };
};

/** The full compile of SOURCES, made once and shared (every case starts from it; results are not changed). */
let firstCompile: CompileResult | undefined;
function compileSources(): CompileResult {
  firstCompile ??= compile(request(SOURCES));
  return firstCompile;
}

/** Compiles `sources` with the baseline of a first compile of SOURCES, and checks the IR against a full compile. */
function incremental(sources: Record<string, string>): CompileResult {
  const first = compileSources();
  assert.ok(first.success, JSON.stringify(first.diagnostics));
  const result = compile(request(sources, nextBaseline(undefined, first)));
  const full = sources === SOURCES ? first : compile(request(sources));
  if (full.success) {
    assert.ok(result.success, JSON.stringify(result.diagnostics));
    assert.is(canonicalJson(result.ir), canonicalJson(full.ir), 'the incremental IR equals a full compile\'s');
    assert.equal(result.modules, full.modules);
  }
  return result;
}

const Incremental = suite('elm-frontend: incremental compiles from a baseline');

Incremental('should compile every module, with digests and a context digest, without a baseline', () => {
  const result = compileSources();
  assert.ok(result.success);
  assert.equal(statuses(result), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  assert.match(result.contextDigest ?? '', /^sha256:[0-9a-f]{64}$/);
  const top = result.moduleResults!.find((r) => r.name === 'Top')!;
  assert.equal(top.dependsOn, ['Base', 'Mid']);
  assert.match(top.sourceDigest ?? '', /^sha256:[0-9a-f]{64}$/);
  assert.match(top.interfaceDigest ?? '', /^sha256:[0-9a-f]{64}$/);
  assert.ok(Array.isArray(top.ir));
});

Incremental('should reuse every module when nothing changed, and return the same IR', () => {
  const result = incremental(SOURCES);
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Leaf: 'unchanged' });
  assert.ok(result.moduleResults!.every((r) => r.ir === undefined), 'unchanged entries carry no IR');
});

Incremental('should compile only an edited leaf module', () => {
  const result = incremental(edit('Acme/Leaf.elm', 'amount * 2', 'amount * 3'));
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Leaf: 'compiled' });
});

Incremental('should not compile the dependents of a module whose interface did not change', () => {
  const result = incremental(edit('Acme/Mid.elm', '{ qty = n, price = 2 }', '{ qty = n, price = 5 }'));
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'compiled', Top: 'unchanged', Leaf: 'unchanged' });
});

Incremental('should compile the dependents of a changed interface, also those that reach it through another module', () => {
  const result = incremental(edit('Acme/Base.elm', '{ qty : Int, price : Money }', '{ qty : Int, price : Money, note : String }').valueOf() as Record<string, string>);
  // Mid's record literal no longer has every field: a full compile fails too, so only compare statuses.
  assert.equal(statuses(result).Base, 'compiled');
  const renamed = incremental(edit('Acme/Base.elm', 'zero : Money\nzero =\n    0\n', 'zero : Money\nzero =\n    0\n\n\none : Money\none =\n    1\n'));
  // Leaf reaches Base through Top and Mid: it is compiled again too (dependsOn is transitive).
  assert.equal(statuses(renamed), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
});

Incremental('should report a broken module as failed and keep the others\' IR', () => {
  const result = incremental(edit('Acme/Top.elm', 'amount : Int', 'amount : String'));
  assert.not.ok(result.success);
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'failed', Leaf: 'unchanged' });
  const top = result.moduleResults!.find((r) => r.name === 'Top')!;
  assert.ok((top.diagnostics ?? []).some((d) => d.severity === 'error' && d.location?.uri === 'file:///w/src/Acme/Top.elm'), JSON.stringify(top.diagnostics));
  assert.equal(result.modules, ['Base', 'Leaf', 'Mid'], 'the IR holds the modules that did compile');
  assert.equal(irModules(result.ir!).map(([path]) => JSON.stringify(path)), ['[["base"]]', '[["leaf"]]', '[["mid"]]']);
});

Incremental('should block the importers of a broken module that has no baseline', () => {
  const first = compileSources();
  const sources = { ...SOURCES, 'Acme/New.elm': 'module Acme.New exposing (x)\n\nx : Int\nx =\n    "no"\n', 'Acme/Leaf.elm': SOURCES['Acme/Leaf.elm'].replace('import Acme.Top\n', 'import Acme.Top\nimport Acme.New\n') };
  const result = compile(request(sources, nextBaseline(undefined, first)));
  assert.not.ok(result.success);
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Leaf: 'blocked', New: 'failed' });
  assert.equal(result.modules, ['Base', 'Mid', 'Top']);
});

Incremental('should ignore a baseline of another context (typesOnly) and compile everything', () => {
  const first = compileSources();
  const result = compile(request(SOURCES, nextBaseline(undefined, first), { typesOnly: true }));
  assert.ok(result.success);
  assert.is.not(result.contextDigest, first.contextDigest);
  assert.equal(statuses(result), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  assert.is(canonicalJson(result.ir), canonicalJson(compile(request(SOURCES, undefined, { typesOnly: true })).ir));
});

Incremental('should ignore a baseline without a context digest, and entries whose IR is not the module\'s', () => {
  const first = compileSources();
  const baseline = nextBaseline(undefined, first)!;
  const none = compile(request(SOURCES, { modules: baseline.modules }));
  assert.equal(statuses(none), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  const forged = { ...baseline, modules: baseline.modules.map((m) => (m.name === 'Mid' ? { ...m, ir: baseline.modules[0].ir } : m.name === 'Top' ? { ...m, ir: 'x' } : m)) };
  const result = compile(request(SOURCES, forged));
  // Top's interface is not known from a baseline entry that is not its IR: Leaf is compiled again.
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  assert.is(canonicalJson(result.ir), canonicalJson(first.ir));
});

Incremental('should drop a deleted module and compile a new one', () => {
  const { ['Acme/Leaf.elm']: _leaf, ...rest } = SOURCES;
  const result = incremental({ ...rest, 'Acme/Extra.elm': 'module Acme.Extra exposing (y)\n\nimport Acme.Base\n\n\ny : Acme.Base.Money\ny =\n    Acme.Base.zero\n' });
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Extra: 'compiled' });
});

/** A worker of its own, recording for each build whether the frontend asked it to start from its kept repository. */
function sessionWorker(): { worker: ElmWorker; reused: boolean[] } {
  const inner = createElmWorker(workerCode(), createTimerQueue(), QUIET);
  const reused: boolean[] = [];
  const worker: ElmWorker = {
    lastBuilt: () => inner.lastBuilt(),
    build: (input, onProgress, onModule) => {
      reused.push('reuse' in input && input.reuse !== undefined);
      return inner.build(input, onProgress, onModule);
    },
  };
  return { worker, reused };
}
const compileOn = (worker: ElmWorker, params: NormalizedCompileParams): CompileResult => {
  const answer = compileElm(params, worker, recordingContext()) as CompileAnswer;
  return { success: answer.success ?? true, modules: answer.modules ?? [], diagnostics: [], ...answer } as CompileResult;
};
const sameAsFull = (result: CompileResult, sources: Record<string, string>, options?: NormalizedCompileParams['options']): void => {
  assert.is(canonicalJson(result.ir), canonicalJson(compile(request(sources, undefined, options)).ir), 'the IR equals a full compile\'s');
};

Incremental('should rebuild the kept modules\' repository once for edits of the same module, and equal a full compile', () => {
  let stash: { rebuilt?: unknown } | undefined;
  const code = workerCode();
  const spy: ElmWorkerCode = function (this: ThisParameterType<ElmWorkerCode>, ...args: Parameters<ElmWorkerCode>) {
    stash = args[4] as { rebuilt?: unknown };
    return code.apply(this, args);
  };
  const worker = createElmWorker(spy, createTimerQueue(), QUIET);
  let baseline = nextBaseline(undefined, compileOn(worker, request(SOURCES)));
  const step = (sources: Record<string, string>, compiled: string): unknown => {
    const result = compileOn(worker, request(sources, baseline));
    baseline = nextBaseline(baseline, result);
    assert.equal(Object.entries(statuses(result)).filter(([, s]) => s === 'compiled').map(([n]) => n), [compiled]);
    sameAsFull(result, sources);
    return stash?.rebuilt;
  };
  const once = step(edit('Acme/Leaf.elm', 'amount * 2', 'amount * 3'), 'Leaf');
  assert.ok(once !== undefined);
  // The same module edited again: the same kept modules, the same rebuilt repository.
  assert.is(step(edit('Acme/Leaf.elm', 'amount * 2', 'amount * 4'), 'Leaf'), once);
  // Another module edited: other kept modules, rebuilt again.
  const other = step({ ...edit('Acme/Leaf.elm', 'amount * 2', 'amount * 4'), 'Acme/Top.elm': SOURCES['Acme/Top.elm'].replace('line 3', 'line 4') }, 'Top');
  assert.ok(other !== undefined && other !== once);
});

Incremental('should start from the repository the session\'s last build kept, and equal a full compile', () => {
  const { worker, reused } = sessionWorker();
  const first = compileOn(worker, request(SOURCES));
  const sources = edit('Acme/Leaf.elm', 'amount * 2', 'amount * 3');
  const result = compileOn(worker, request(sources, nextBaseline(undefined, first)));
  assert.equal(reused, [false, true]);
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Leaf: 'compiled' });
  sameAsFull(result, sources);
  // A module removed: the kept repository still holds it, the build leaves it out.
  const { ['Acme/Leaf.elm']: _leaf, ...rest } = SOURCES;
  const removed = compileOn(worker, request(rest, nextBaseline(nextBaseline(undefined, first), result)));
  assert.equal(reused, [false, true, true]);
  assert.equal(removed.modules, ['Base', 'Mid', 'Top']);
  sameAsFull(removed, rest);
});

Incremental('should not start from the kept repository when the baseline\'s IR is not what it holds, or the context differs', () => {
  const { worker, reused } = sessionWorker();
  const first = compileOn(worker, request(SOURCES));
  // The session's last build has Mid's other body; the baseline (of the first compile) has this one.
  const other = edit('Acme/Mid.elm', '{ qty = n, price = 2 }', '{ qty = n, price = 5 }');
  compileOn(worker, request(other));
  const sources = edit('Acme/Leaf.elm', 'amount * 2', 'amount * 3');
  const result = compileOn(worker, request(sources, nextBaseline(undefined, first)));
  assert.equal(reused, [false, false, false]);
  sameAsFull(result, sources);
  // typesOnly: the kept repository is of another context; so is the baseline, and all is compiled.
  const typesOnly = compileOn(worker, request(sources, nextBaseline(undefined, result), { typesOnly: true }));
  assert.equal(reused, [false, false, false, false]);
  sameAsFull(typesOnly, sources, { typesOnly: true });
});

Incremental('should keep no repository from a failed build, and compile the fixed module against the right one', () => {
  const { worker, reused } = sessionWorker();
  const first = compileOn(worker, request(SOURCES));
  const broken = edit('Acme/Top.elm', 'amount : Int', 'amount : String');
  const failed = compileOn(worker, request(broken, nextBaseline(undefined, first)));
  assert.not.ok(failed.success);
  // The first round failed (nothing kept); the second built the others against Top's baseline IR.
  assert.equal(reused, [false, true, false]);
  const fixed = edit('Acme/Top.elm', 'amount =\n    (Acme.Mid.line 3).qty', 'amount =\n    (Acme.Mid.line 4).qty');
  const result = compileOn(worker, request(fixed, nextBaseline(nextBaseline(undefined, first), failed)));
  assert.ok(result.success, JSON.stringify(result.diagnostics));
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'compiled', Leaf: 'unchanged' });
  sameAsFull(result, fixed);
});

Incremental('should build from the distribution sent, not a repository kept before a failed build (the worker)', () => {
  const worker = createElmWorker(workerCode(), createTimerQueue(), QUIET);
  const input = { options: { typesOnly: false }, packageInfo: { name: 'Acme' }, dependencies: [], context: 'c' };
  assert.is((worker.build({ ...input, fileSnapshot: SOURCES }) as ElmBuildOutcome).kind, 'built');
  const empty = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
  const onlyLeaf = { ...input, fileChanges: { 'Acme/Leaf.elm': ['Insert', SOURCES['Acme/Leaf.elm']] as ['Insert', string] }, distribution: empty };
  const reuse = { '[["base"]]': 'Public', '[["mid"]]': 'Public', '[["top"]]': 'Public' } as const;
  // Kept: Leaf compiles against Base, Mid and Top taken from the last build's repository.
  const kept = worker.build({ ...onlyLeaf, reuse }) as ElmBuildOutcome;
  assert.is(kept.kind, 'built', JSON.stringify(kept).slice(0, 300));
  assert.is((worker.build({ ...input, fileSnapshot: { 'Acme/Top.elm': 'module Acme.Top exposing (x)\n\nx =\n' } }) as ElmBuildOutcome).kind, 'failed');
  assert.is(worker.lastBuilt(), undefined);
  // After the failure nothing is kept: Top is missing, so Leaf does not compile.
  assert.is((worker.build({ ...onlyLeaf, reuse }) as ElmBuildOutcome).kind, 'failed');
  // Another context: the repository kept is not used either.
  assert.is((worker.build({ ...input, fileSnapshot: SOURCES }) as ElmBuildOutcome).kind, 'built');
  assert.is((worker.build({ ...onlyLeaf, context: 'other', reuse }) as ElmBuildOutcome).kind, 'failed');
});

/** `baseline` with the IR of the modules `names` left out, as a host does in the session that received it. */
const withoutIr = (baseline: CompileBaseline, names: string[]): CompileBaseline => ({
  ...baseline,
  modules: baseline.modules.map((m) => (names.includes(m.name) ? { ...m, ir: undefined } : m)),
});

Incremental('should take a module named without IR from what the session\'s last compile answered, only when the digests are its own', () => {
  const { worker, reused } = sessionWorker();
  const first = compileOn(worker, request(SOURCES));
  assert.is((first as { keptModuleIr?: unknown }).keptModuleIr, true, 'the answer says the IR is kept');
  const sources = edit('Acme/Leaf.elm', 'amount * 2', 'amount * 3');
  const result = compileOn(worker, request(sources, withoutIr(nextBaseline(undefined, first)!, ['Base', 'Mid', 'Top', 'Leaf'])));
  assert.equal(reused, [false, true]);
  assert.equal(statuses(result), { Base: 'unchanged', Mid: 'unchanged', Top: 'unchanged', Leaf: 'compiled' });
  sameAsFull(result, sources);
  // A digest that is not the one computed here for what is held: that module is compiled, and so is what depends on its interface.
  const next = withoutIr(nextBaseline(nextBaseline(undefined, first), result)!, ['Base', 'Mid', 'Top', 'Leaf']);
  next.modules = next.modules.map((m) => (m.name === 'Mid' ? { ...m, interfaceDigest: 'sha256:0' } : m));
  const forged = compileOn(worker, request(sources, next));
  assert.equal(statuses(forged).Mid, 'compiled');
  assert.equal(statuses(forged).Base, 'unchanged');
  sameAsFull(forged, sources);
  // Another session (a fresh worker) holds nothing: every module named without IR is compiled.
  const fresh = compileOn(sessionWorker().worker, request(sources, withoutIr(nextBaseline(undefined, first)!, ['Base', 'Mid', 'Top', 'Leaf'])));
  assert.equal(statuses(fresh), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  sameAsFull(fresh, sources);
});

Incremental('should hold nothing after a failed build: a module named without IR is then compiled', () => {
  const { worker } = sessionWorker();
  const first = compileOn(worker, request(SOURCES));
  const failed = compileOn(worker, request({ ...SOURCES, 'Acme/Top.elm': 'module Acme.Top exposing (x)\n\nx =\n' }));
  assert.not.ok(failed.success);
  assert.is((failed as { keptModuleIr?: unknown }).keptModuleIr, undefined);
  const result = compileOn(worker, request(SOURCES, withoutIr(nextBaseline(undefined, first)!, ['Base', 'Mid'])));
  // Base and Mid compiled (with no interface known before them, what imports them is compiled too).
  assert.equal(statuses(result), { Base: 'compiled', Mid: 'compiled', Top: 'compiled', Leaf: 'compiled' });
  sameAsFull(result, SOURCES);
});

Incremental.run();
