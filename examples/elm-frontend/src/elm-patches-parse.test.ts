import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PARSE_PATCHES } from './elm-patches-parse.ts';
import { ELM_PATCHES, patchElmWorker } from './elm-patches.ts';
import { installedWorkerSource } from './testing.ts';

/** What the probe hands out of the worker's closure: the Elm runtime's equality and chars, and Combine's lazy. */
interface Probe {
  eq(x: unknown, y: unknown): boolean;
  equal: { f(x: unknown, y: unknown): boolean };
  chr(c: string): unknown;
  lazy(thunk: (unit: unknown) => { a(state: unknown): unknown }): { a(state: unknown): { a(s: unknown): unknown } };
  list(items: unknown[]): unknown;
  /** Morphir's `Name.fromString` (the `name-memo` edit's). */
  name(text: string): unknown;
}

const PROBE_BEFORE = "var $elm$parser$Parser$Nestable = {$: 'Nestable'};";

/**
 * Evaluates the edited worker's code once (2 MB of JavaScript) with probes that hand out of its
 * closure the runtime's equality and chars and Combine's lazy: as the edits leave them, and as
 * they were just before each edit (the unedited functions, to compare with).
 */
function probes(): { edited: Probe; plain: Probe } {
  const { source, version } = installedWorkerSource();
  let text = patchElmWorker(source, version);
  const [equality, lazy] = PARSE_PATCHES;
  const insertBefore = (anchor: string, code: string): void => {
    const parts = text.split(anchor);
    assert.is(parts.length, 2, anchor);
    text = `${parts[0]}${code}${anchor}${parts[1]}`;
  };
  insertBefore((equality as { code: string }).code, 'repoStash.eq = _Utils_eq;\n');
  insertBefore((lazy as { code: string }).code, 'repoStash.lazy = $stil4m$elm_syntax$Combine$lazy;\n');
  insertBefore((ELM_PATCHES.find((p) => p.name === 'name-memo') as { code: string }).code, 'repoStash.name = $author$project$Morphir$IR$Name$fromString;\n');
  insertBefore(PROBE_BEFORE, 'repoStash.probe = { eq: _Utils_eq, equal: _Utils_equal, chr: _Utils_chr, lazy: $stil4m$elm_syntax$Combine$lazy, list: _List_fromArray, name: $author$project$Morphir$IR$Name$fromString };\n');
  const stash: { probe?: Probe; eq?: Probe['eq']; lazy?: Probe['lazy']; name?: Probe['name'] } = {};
  new Function('setTimeout', 'clearTimeout', 'console', 'moduleStep', 'repoStash', text).call({}, () => 0, () => undefined, console, () => undefined, stash);
  const edited = stash.probe as Probe;
  // The original equality is a plain function of two arguments; `_Utils_equal` is made from it after the edit.
  const eq = stash.eq as Probe['eq'];
  return { edited, plain: { ...edited, eq, equal: { f: eq }, lazy: stash.lazy as Probe['lazy'], name: stash.name as Probe['name'] } };
}

const { edited, plain } = probes();

const Parse = suite('elm-patches-parse');

Parse('should apply each edit before its own anchor', () => {
  const { source, version } = installedWorkerSource();
  const patched = patchElmWorker(source, version);
  for (const p of PARSE_PATCHES) assert.is(patched.split(p.code + p.before).length, 2, p.name);
});

Parse('should compare values as the unedited runtime does: chars (one or two code units), strings, numbers, lists, records, null', () => {
  const values = (p: Probe): unknown[] => [
    p.chr('a'), p.chr('a'), p.chr('b'), p.chr('\u{1F600}'), p.chr('\u{1F601}'), p.chr('\uD83D'), p.chr(''),
    'a', 'ab', '', 0, 1, -0, Number.NaN, true, false, null,
    p.list([p.chr('x'), 'y', 2]), p.list([p.chr('x'), 'y', 2]), p.list([p.chr('x'), 'z', 2]),
    { $: 'Just', a: p.chr('q') }, { $: 'Just', a: p.chr('q') }, { $: 'Just', a: p.chr('r') }, { a: 1, b: 'b' }, { a: 1, b: 'c' },
  ];
  const mine = values(edited);
  const theirs = values(plain);
  for (let i = 0; i < mine.length; i++) {
    for (let j = 0; j < mine.length; j++) {
      const expected = plain.eq(theirs[i], theirs[j]);
      assert.is(edited.eq(mine[i], mine[j]), expected, `eq #${i} #${j}`);
      assert.is(edited.equal.f(mine[i], mine[j]), expected, `== #${i} #${j}`);
    }
  }
  assert.ok(edited.eq(edited.chr('\u{1F600}'), edited.chr('\u{1F600}')));
  assert.not.ok(edited.eq(edited.chr('a'), edited.chr('A')));
});

Parse('should still refuse to compare two different functions, as Elm does', () => {
  const f = (): number => 1;
  const g = (): number => 2;
  assert.throws(() => plain.eq(f, g));
  assert.throws(() => edited.eq(f, g));
  assert.is(edited.eq(f, f), true);
});

Parse('should run the thunk of a lazy parser once, however often the parser runs', () => {
  let calls = 0;
  const inner = { a: (state: unknown) => ({ a: (s: unknown) => ['ran', state, s] }) };
  const thunk = (): typeof inner => {
    calls++;
    return inner;
  };
  const parser = edited.lazy(thunk);
  assert.equal(parser.a('state-1').a('s-1'), ['ran', 'state-1', 's-1']);
  assert.equal(parser.a('state-2').a('s-2'), ['ran', 'state-2', 's-2']);
  assert.equal(parser.a('state-3').a('s-3'), ['ran', 'state-3', 's-3']);
  assert.is(calls, 1);
  // Each lazy parser has its own thunk.
  const other = edited.lazy(() => ({ a: () => ({ a: () => 'other' }) }));
  assert.is(other.a(0).a(0), 'other');
  assert.is(calls, 1);
  // The unedited one runs it every time (what the edit saves).
  calls = 0;
  const unedited = plain.lazy(thunk);
  unedited.a(1).a(1);
  unedited.a(2).a(2);
  assert.is(calls, 2);
});

Parse('should split a name as the unedited Name.fromString does, the first time and when it is known (name-memo)', () => {
  const texts = ['fooBar', 'FooBar', 'foo_bar', 'value2Go', 'USD', 'a', '', '123abc', 'élan', 'x'.repeat(50), 'fooBar'];
  for (let round = 0; round < 2; round++) {
    for (const text of texts) assert.equal(JSON.parse(JSON.stringify(edited.name(text))), JSON.parse(JSON.stringify(plain.name(text))), `${text} (round ${round})`);
  }
  // Known: the same (immutable) value again, where the unedited one splits the text anew.
  assert.ok(edited.name('fooBar') === edited.name('fooBar'));
  assert.not.ok(plain.name('fooBar') === plain.name('fooBar'));
  // Past its bound it forgets what it knew and still answers the same.
  for (let i = 0; i < 5000; i++) edited.name(`name${i}`);
  assert.equal(JSON.parse(JSON.stringify(edited.name('name4999'))), JSON.parse(JSON.stringify(plain.name('name4999'))));
  assert.equal(JSON.parse(JSON.stringify(edited.name('fooBar'))), JSON.parse(JSON.stringify(plain.name('fooBar'))));
});

Parse.run();
