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
  /** The edited combinators' direct run (`direct-run`): the same step without building a parser per state. */
  r?(state: unknown, s: unknown): Step;
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
  succeed(value: unknown): CombineParser;
  withState(f: (state: unknown) => CombineParser): CombineParser;
  modifyState(f: (state: unknown) => unknown): CombineParser;
  continueWith: Curried2;
  ignore: Curried2;
  lazy(thunk: (unit: unknown) => CombineParser): CombineParser;
  node(p: CombineParser): CombineParser;
}
const FUSED = ['andMap', 'choice', 'andThen', 'map', 'or', 'withLocation', 'many', 'maybe', 'fromCore', 'string', 'succeed', 'withState', 'modifyState', 'continueWith', 'ignore', 'lazy', 'node'] as const;
const EDIT_OF: Record<(typeof FUSED)[number], string> = {
  andMap: 'fused-combinators', choice: 'fused-choice', andThen: 'fused-and-then', map: 'fused-map', or: 'fused-or', withLocation: 'fused-location', many: 'fused-many',
  maybe: 'fused-maybe', fromCore: 'fused-from-core', string: 'fused-string', succeed: 'fused-succeed', withState: 'fused-succeed', modifyState: 'fused-modify-state',
  continueWith: 'fused-sequence', ignore: 'fused-sequence', lazy: 'memo-lazy', node: 'fused-node',
};
/** The worker's name of each, where it is not Combine's. */
const GLOBAL: Partial<Record<(typeof FUSED)[number], string>> = { node: '$stil4m$elm_syntax$Elm$Parser$Node$parser' };

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
    const global = GLOBAL[name] ?? `$stil4m$elm_syntax$Combine$${name}`;
    insertBefore(edit.code, `repoStash.plain.${name} = ${global};\n`);
    insertBefore(edit.before, `repoStash.edited.${name} = ${global};\n`);
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

/**
 * Whether the parsers under test are run through their direct run where they have one, and the
 * fixed parsers given to them have one too (so both of an edited combinator's ways to run its
 * parts, and both ways to run it, are compared with the unedited one).
 */
let direct = false;
const go = (p: CombineParser, state: unknown, s: unknown): Step => (direct && p.r ? p.r(state, s) : p.a(state).a(s));
const text = (x: unknown): string => (typeof x === 'object' ? JSON.stringify(x) : String(x));
/** Where a parser that read `tag` leaves the parser state: a position further on (an object state) or a trace (a text state). */
const after = (s: unknown, tag: string): unknown => {
  if (typeof s !== 'object' || s === null) return `${String(s)}>${tag}`;
  const at = s as { row: number; col: number };
  return { ...at, row: at.row + 1, col: at.col + tag.length };
};

/** A parser with a fixed outcome that records the states it was given in what it returns. */
function fixed(tag: string, outcome: { good: boolean; committed: boolean }, value: unknown = `${tag}-value`): CombineParser {
  const run = (state: unknown, s: unknown): Step =>
    outcome.good
      ? { $: 'Good', a: outcome.committed, b: tuple(`${tag}(${text(state)})`, value), c: after(s, tag) }
      : { $: 'Bad', a: outcome.committed, b: `${tag}-problem at ${text(s)} in ${text(state)}` };
  return { $: 'Parser', a: (state) => ({ a: (s) => run(state, s) }), ...(direct ? { r: run } : {}) };
}

const same = (run: (c: Combinators) => Step, what: string): void => {
  assert.equal(JSON.parse(JSON.stringify(run(edited))), JSON.parse(JSON.stringify(run(plain))), `${what}${direct ? ' (direct run)' : ''}`);
};
/** A test body run twice: parsers without a direct run, then with one. */
const bothWays = (body: () => void) => (): void => {
  for (const way of [false, true]) {
    direct = way;
    try {
      body();
    } finally {
      direct = false;
    }
  }
};

const Fused = suite('elm-patches fused combinators');

Fused('should give what the unedited andMap, andThen, or and choice give, for every pair of outcomes', bothWays(() => {
  const apply = (v: unknown): unknown => ['applied', v];
  for (const [i, left] of OUTCOMES.entries()) {
    for (const [j, right] of OUTCOMES.entries()) {
      const what = `left #${i}, right #${j}`;
      same((c) => go(c.andMap.f(fixed('R', right), fixed('L', left, apply)), 'st', 's0'), `andMap ${what}`);
      same((c) => go(c.andThen.f((v: unknown) => fixed(`R[${String(v)}]`, right), fixed('L', left)), 'st', 's0'), `andThen ${what}`);
      same((c) => go(c.or.f(fixed('L', left), fixed('R', right)), 'st', 's0'), `or ${what}`);
      same((c) => go(c.continueWith.f(fixed('T', right), fixed('D', left)), 'st', 's0'), `continueWith ${what}`);
      same((c) => go(c.ignore.f(fixed('D', right), fixed('T', left)), 'st', 's0'), `ignore ${what}`);
      for (const [k, third] of OUTCOMES.entries()) {
        same((c) => go(c.choice(list([fixed('A', left), fixed('B', right), fixed('C', third)])), 'st', 's0'), `choice ${what}, third #${k}`);
      }
    }
    same((c) => go(c.map.f((v: unknown) => ['mapped', v], fixed('P', left)), 'st', 's0'), `map #${i}`);
    same((c) => go(c.maybe(fixed('P', left)), 'st', 's0'), `maybe #${i}`);
    same((c) => go(c.fromCore(fixed('P', left).a('core')), 'st', 's0'), `fromCore #${i}`);
    same((c) => go(c.withState((st) => fixed(`W[${String(st)}]`, left)), 'st', 's0'), `withState #${i}`);
    same((c) => go(c.lazy(() => fixed('Z', left)), 'st', 's0'), `lazy #${i}`);
  }
  same((c) => go(c.choice(list([])), 'st', 's0'), 'choice of none');
  same((c) => go(c.succeed('value'), 'st', 's0'), 'succeed');
  same((c) => go(c.modifyState((st) => `changed ${String(st)}`), 'st', 's0'), 'modifyState');
}));

Fused('should give the unedited withLocation\'s location and outcome, and a node its range', bothWays(() => {
  for (const [i, outcome] of OUTCOMES.entries()) {
    same((c) => go(c.withLocation((l) => fixed(`at ${JSON.stringify(l)}`, outcome)), 'st', { row: 3, col: 7, src: 'x' }), `withLocation #${i}`);
    same((c) => go(c.node(fixed('token', outcome)), 'st', { row: 3, col: 7, src: 'x' }), `Node.parser #${i}`);
  }
}));

Fused('should repeat as the unedited many does: items, states, commitment and the failure that ends it', bothWays(() => {
  // Succeeds `count` times (committing on the turns in `commits`), then ends with `last`.
  const counted = (count: number, commits: number[], last: { committed: boolean }): CombineParser => {
    const run = (state: unknown, s: unknown): Step => {
      const n = Number(state);
      if (n < count) return { $: 'Good', a: commits.includes(n), b: tuple(n + 1, `item${n}`), c: `${String(s)}+${n}` };
      return { $: 'Bad', a: last.committed, b: `stop at ${String(s)}` };
    };
    return { a: (state) => ({ a: (s) => run(state, s) }), ...(direct ? { r: run } : {}) };
  };
  for (let count = 0; count <= 3; count++) {
    for (const commits of [[], [0], [count - 1], [0, 1, 2]]) {
      for (const committed of [false, true]) {
        same((c) => go(c.many(counted(count, commits, { committed })), 0, 's0'), `many ${count} commits ${commits.join(',')} last ${committed}`);
      }
    }
  }
}));

Fused('should read a token as the unedited string does, at every offset and on a mismatch', bothWays(() => {
  const source = 'module Main exposing (..)\n';
  for (const token of ['module', 'Main', 'exposing', '(..)', 'mod', 'x', '']) {
    for (const offset of [0, 1, 7, source.length]) {
      const s = { src: source, offset, indent: 1, context: { $: '[]' }, row: 1, col: offset + 1 };
      same((c) => go(c.string(token), 'st', s), `string ${JSON.stringify(token)} at ${offset}`);
    }
  }
}));

Fused('should run the lazy parser\'s thunk once, through either way of running it', () => {
  let calls = 0;
  const parser = edited.lazy(() => {
    calls++;
    return fixed('Z', { good: true, committed: true });
  });
  parser.a('st').a('s0');
  parser.r?.('st', 's1');
  assert.is(calls, 1);
  assert.type(parser.r, 'function');
});

Fused.run();
