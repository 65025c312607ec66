import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from '../protocol/errors.ts';
import { artifactPathKey, createArtifactPathSet } from './path-set.ts';
import { thrownCode } from '../../../fixtures/testing/error-codes.ts';

const codeOf = thrownCode;

/** ERR_ARTIFACT when `second` is added after `first`, undefined when both are accepted. */
const after = (first: string, second: string): unknown => {
  const set = createArtifactPathSet('ext');
  set.add(first);
  return codeOf(() => set.add(second));
};

const Key = suite('artifactPathKey');

Key('should join spellings that case- and normalization-insensitive file systems join', () => {
  const twins: [string, string][] = [
    ['caf\u00e9.avsc', 'cafe\u0301.avsc'], // NFC and NFD
    ['A.avsc', 'a.avsc'],
    ['Stra\u00dfe', 'STRASSE'],
    ['\u1e9e', 'ss'], // capital sharp s
    ['\u212a', 'k'], // Kelvin sign
    ['\ufb01le', 'FILE'], // the fi ligature
    ['\u03a3\u03bf\u03c6\u03af\u03b1\u03c2', '\u03c3\u03bf\u03c6\u03b9\u0301\u03b1\u03c3'], // final sigma, decomposed iota
    ['\u00c5ngstr\u00f6m', 'A\u030angstro\u0308m'],
  ];
  for (const [a, b] of twins) assert.is(artifactPathKey(a), artifactPathKey(b), `${a} ~ ${b}`);
  for (const [a, b] of [['a', 'b'], ['e', '\u00e9'], ['ss', 's'], ['a.avsc', 'a.avsc ']]) assert.is.not(artifactPathKey(a), artifactPathKey(b), `${a} !~ ${b}`);
});

Key.run();

const Paths = suite('createArtifactPathSet');

Paths('should refuse NFC/NFD twins and case twins, as files and as directories :: hostile', () => {
  assert.is(after('schemas/caf\u00e9.avsc', 'schemas/cafe\u0301.avsc'), LocalErrorCode.Artifact);
  assert.is(after('a.avsc', 'A.avsc'), LocalErrorCode.Artifact);
  assert.is(after('Types/a.avsc', 'types/b.avsc'), LocalErrorCode.Artifact, 'two spellings of one directory');
  assert.is(after('x/Stra\u00dfe/a', 'x/STRASSE/b'), LocalErrorCode.Artifact);
  assert.is(after('a.avsc', 'a.avsc'), LocalErrorCode.Artifact, 'the same path twice');
});

Paths('should refuse a name that is a file in one path and a directory in another', () => {
  assert.is(after('a', 'a/b'), LocalErrorCode.Artifact);
  assert.is(after('a/b', 'a'), LocalErrorCode.Artifact);
  assert.is(after('a/b', 'A'), LocalErrorCode.Artifact);
  assert.is(after('A', 'a/b'), LocalErrorCode.Artifact);
});

Paths('should accept distinct names, shared directories and near misses', () => {
  const set = createArtifactPathSet('ext');
  for (const path of ['a/b.avsc', 'a/c.avsc', 'a/d/e.avsc', 'ab', 'a.b', '\u00e9', 'e', 'a/B.avsc.bak']) set.add(path);
  assert.is(set.size, 8);
});

Paths('should leave the set as it was after a refusal', () => {
  const set = createArtifactPathSet('ext');
  set.add('x/Y/a');
  assert.is(codeOf(() => set.add('x/y/b')), LocalErrorCode.Artifact);
  set.add('x/Y/b');
  set.add('x/z');
  assert.is(set.size, 3);
  assert.is(codeOf(() => set.add('x/y')), LocalErrorCode.Artifact);
});

Paths('should refuse names HFS+ takes for one: the same name with a code point it ignores, naming both paths and the rule :: hostile', () => {
  for (const ignorable of ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u2060', '\u206a', '\u206f', '\ufeff']) {
    const set = createArtifactPathSet('ext');
    set.add('dir/a.txt');
    let error: { code?: unknown; data?: Record<string, unknown> } | undefined;
    try {
      set.add(`dir/a${ignorable}.txt`);
    } catch (e) {
      error = e as typeof error;
    }
    assert.equal([error?.code, error?.data?.rule, error?.data?.other], [LocalErrorCode.Artifact, 'ignorable-code-point', 'dir/a.txt'], `U+${ignorable.charCodeAt(0).toString(16)}`);
    assert.is(after(`d\u200bir/x`, 'dir/y'), LocalErrorCode.Artifact, 'in a directory name too');
  }
  assert.is(after('A.avsc', 'a.avsc'), LocalErrorCode.Artifact);
});

Paths.run();
