import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PARSE_PATCHES } from './elm-patches-parse.ts';
import { patchElmWorker } from './elm-patches.ts';
import { installedWorkerSource } from './testing.ts';

/** elm/parser's step (`Good p value state` or `Bad p problems`), as the worker's runtime makes it. */
type Step = { $: 'Good'; a: boolean; b: unknown; c: unknown } | { $: 'Bad'; a: boolean; b: unknown };
/** A Combine parser: a state gives an elm/parser parser, whose `a` runs it on a parser state. */
interface CombineParser {
  $?: string;
  a(state: unknown): { a(s: unknown): Step };
}
type Curried2 = { f(x: unknown, y: unknown): CombineParser };
interface Combinators {
  andMap: Curried2;
  andThen: Curried2;
  map: Curried2;
  or: Curried2;
  choice(list: unknown): CombineParser;
  withLocation(f: (location: unknown) => CombineParser): CombineParser;
  many(p: CombineParser): CombineParser;
  maybe(p: CombineParser): CombineParser;
  fromCore(p: { a(s: unknown): Step }): CombineParser;
  string(text: string): CombineParser;
}
const FUSED = ['andMap', 'choice', 'andThen', 'map', 'or', 'withLocation', 'many', 'maybe', 'fromCore', 'string'] as const;
const EDIT_OF: Record<(typeof FUSED)[number], string> = {
  andMap: 'fused-combinators', choice: 'fused-choice', andThen: 'fused-and-then', map: 'fused-map', or: 'fused-or', withLocation: 'fused-location', many: 'fused-many',
  maybe: 'fused-maybe', fromCore: 'fused-from-core', string: 'fused-string',
};

/**
 * Evaluates the edited worker once with probes that hand out Combine's combinators as each fused
 * edit leaves them and as they were just before it (the unedited ones, to compare with).
 */
function probes(): { edited: Combinators; plain: Combinators; list(items: unknown[]): unknown } {
  const { source, version } = installedWorkerSource();
  let text = patchElmWorker(source, version);
  const insertBefore = (anchor: string, code: string): void => {
    const parts = text.split(anchor);
    assert.is(parts.length, 2, anchor);
    text = `${parts[0]}${code}${anchor}${parts[1]}`;
  };
  for (const name of FUSED) {
    const edit = PARSE_PATCHES.find((p) => p.name === EDIT_OF[name]);
    assert.ok(edit, EDIT_OF[name]);
    insertBefore(edit.code, `repoStash.plain.${name} = $stil4m$elm_syntax$Combine$${name};\n`);
    insertBefore(edit.before, `repoStash.edited.${name} = $stil4m$elm_syntax$Combine$${name};\n`);
  }
  insertBefore("var $elm$parser$Parser$Nestable = {$: 'Nestable'};", 'repoStash.list = _List_fromArray;\n');
  const stash = { plain: {}, edited: {} } as { plain: Combinators; edited: Combinators; list(items: unknown[]): unknown };
  new Function('setTimeout', 'clearTimeout', 'console', 'moduleStep', 'repoStash', text).call({}, () => 0, () => undefined, console, () => undefined, stash);
  return stash;
}

const { edited, plain, list } = probes();
const tuple = (a: unknown, b: unknown): unknown => ({ $: '#2', a, b });
/** The outcomes a parser can have: success or failure, each having consumed input (committed) or not. */
const OUTCOMES = [
  { good: true, committed: false },
  { good: true, committed: true },
  { good: false, committed: false },
  { good: false, committed: true },
];

/** A parser with a fixed outcome that records the states it was given in what it returns. */
function fixed(tag: string, outcome: { good: boolean; committed: boolean }, value: unknown = `${tag}-value`): CombineParser {
  return {
    $: 'Parser',
    a: (state) => ({
      a: (s) =>
        outcome.good
          ? { $: 'Good', a: outcome.committed, b: tuple(`${tag}(${String(state)})`, value), c: `${String(s)}>${tag}` }
          : { $: 'Bad', a: outcome.committed, b: `${tag}-problem at ${String(s)} in ${String(state)}` },
    }),
  };
}

const same = (run: (c: Combinators) => Step, what: string): void => {
  assert.equal(JSON.parse(JSON.stringify(run(edited))), JSON.parse(JSON.stringify(run(plain))), what);
};

const Fused = suite('elm-patches fused combinators');

Fused('should give what the unedited andMap, andThen, or and choice give, for every pair of outcomes', () => {
  const apply = (v: unknown): unknown => ['applied', v];
  for (const [i, left] of OUTCOMES.entries()) {
    for (const [j, right] of OUTCOMES.entries()) {
      const what = `left #${i}, right #${j}`;
      same((c) => c.andMap.f(fixed('R', right), fixed('L', left, apply)).a('st').a('s0'), `andMap ${what}`);
      same((c) => c.andThen.f((v: unknown) => fixed(`R[${String(v)}]`, right), fixed('L', left)).a('st').a('s0'), `andThen ${what}`);
      same((c) => c.or.f(fixed('L', left), fixed('R', right)).a('st').a('s0'), `or ${what}`);
      for (const [k, third] of OUTCOMES.entries()) {
        same((c) => c.choice(list([fixed('A', left), fixed('B', right), fixed('C', third)])).a('st').a('s0'), `choice ${what}, third #${k}`);
      }
    }
    same((c) => c.map.f((v: unknown) => ['mapped', v], fixed('P', left)).a('st').a('s0'), `map #${i}`);
    same((c) => c.maybe(fixed('P', left)).a('st').a('s0'), `maybe #${i}`);
    same((c) => c.fromCore(fixed('P', left).a('core')).a('st').a('s0'), `fromCore #${i}`);
    same((c) => c.choice(list([])).a('st').a('s0'), 'choice of none');
  }
});

Fused('should give the unedited withLocation\'s location and outcome', () => {
  for (const [i, outcome] of OUTCOMES.entries()) {
    same((c) => c.withLocation((l) => fixed(`at ${JSON.stringify(l)}`, outcome)).a('st').a({ row: 3, col: 7, src: 'x' }), `withLocation #${i}`);
  }
});

Fused('should repeat as the unedited many does: items, states, commitment and the failure that ends it', () => {
  // Succeeds `count` times (committing on the turns in `commits`), then ends with `last`.
  const counted = (count: number, commits: number[], last: { committed: boolean }): CombineParser => ({
    a: (state) => ({
      a: (s) => {
        const n = Number(state);
        if (n < count) return { $: 'Good', a: commits.includes(n), b: tuple(n + 1, `item${n}`), c: `${String(s)}+${n}` };
        return { $: 'Bad', a: last.committed, b: `stop at ${String(s)}` };
      },
    }),
  });
  for (let count = 0; count <= 3; count++) {
    for (const commits of [[], [0], [count - 1], [0, 1, 2]]) {
      for (const committed of [false, true]) {
        same((c) => c.many(counted(count, commits, { committed })).a(0).a('s0'), `many ${count} commits ${commits.join(',')} last ${committed}`);
      }
    }
  }
});

Fused('should read a token as the unedited string does, at every offset and on a mismatch', () => {
  const source = 'module Main exposing (..)\n';
  for (const token of ['module', 'Main', 'exposing', '(..)', 'mod', 'x', '']) {
    for (const offset of [0, 1, 7, source.length]) {
      const s = { src: source, offset, indent: 1, context: { $: '[]' }, row: 1, col: offset + 1 };
      same((c) => c.string(token).a('st').a(s), `string ${JSON.stringify(token)} at ${offset}`);
    }
  }
});

Fused.run();
