import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findExcessNesting } from './json-depth.ts';
import { JsonText, JsonTextError } from './json-text.ts';

const test = suite('JsonText');

const accepts = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

test('should take every kind of JSON value, keep its text, and parse it only when asked', () => {
  const docs = ['{"formatVersion":3,"distribution":["Library",[["a"]],{}]}', ' [1, -0.5e+3, "x\\u00e9\\n", true, false, null, {}, []] ', '"s"', '0', 'null', '{ "a" : { "b" : [ ] } , "c" : "\\"\\\\\\/" }'];
  for (const text of docs) {
    const json = JsonText.parse(text);
    assert.is(json.text, text);
    assert.equal(json.value(), JSON.parse(text));
    assert.is(JSON.stringify({ v: json }), JSON.stringify({ v: JSON.parse(text) }), 'toJSON writes the value');
    assert.equal(JSON.parse(json.compactText()), JSON.parse(text));
  }
  assert.equal(docs.map((d) => JsonText.parse(d).kind), ['object', 'array', 'string', 'number', 'null', 'object']);
});

test('should read top-level primitive members, and only those', () => {
  const json = JsonText.parse('{\n  "formatVersion": 3,\n  "name": "a\\"b",\n  "nested": { "formatVersion": 9, "deep": 1 },\n  "list": [1],\n  "flag": false\n}');
  assert.is(json.member('formatVersion'), 3);
  assert.is(json.member('name'), 'a"b');
  assert.is(json.member('flag'), false);
  assert.is(json.member('nested'), undefined);
  assert.is(json.member('deep'), undefined);
  assert.is(json.member('list'), undefined);
  assert.is(JsonText.parse('[{"formatVersion":3}]').member('formatVersion'), undefined);
});

test('should check indented text (mostly whitespace) by parsing it, with the same verdicts and members', () => {
  const value = { formatVersion: 3, distribution: ['Library', [['a']], { n: [1, 2] }], name: 'x y' };
  const json = JsonText.parse(JSON.stringify(value, null, 4));
  assert.equal([json.kind, json.member('formatVersion'), json.member('name'), json.member('distribution')], ['object', 3, 'x y', undefined]);
  assert.is(json.compactText(), JSON.stringify(value));
  const broken = `${JSON.stringify(value, null, 4).slice(0, -2)},\n}`;
  assert.throws(() => JsonText.parse(broken), (e: unknown) => e instanceof JsonTextError && /line \d+, column \d+/.test((e as Error).message));
});

test('should compact whitespace between tokens but never inside strings', () => {
  const text = '{\n    "a b": [ 1 ,\t2 ],\r\n    "c": "  spaced \\" still "\n}\n';
  const compact = JsonText.parse(text).compactText();
  assert.is(compact, '{"a b":[1,2],"c":"  spaced \\" still "}');
  const already = '{"x":[1,2]}';
  assert.is(JsonText.parse(already).compactText(), already);
});

test('should refuse what JSON.parse refuses, naming the problem and where', () => {
  const bad = ['', ' ', '{', '{"a"}', '{"a":}', '{"a":1,}', '[1,]', '[1 2]', '01', '1.', '.5', '1e', '-', '+1', 'tru', 'nul', '"abc', '"a\nb"', '"\\x"', '"\\u12g4"', '{a:1}', "{'a':1}", '[1]]', '{} {}', 'NaN', '[,1]', '{"a":1 "b":2}', '"\t"'];
  for (const text of bad) {
    assert.not.ok(accepts(text), `JSON.parse accepts ${JSON.stringify(text)}`);
    assert.throws(() => JsonText.parse(text), (e: unknown) => e instanceof JsonTextError && e instanceof SyntaxError && /line \d+, column \d+/.test(e.message), JSON.stringify(text));
  }
  const error = (() => {
    try {
      JsonText.parse('{\n  "a": [1,\n  2,,]\n}');
    } catch (e) {
      return e as JsonTextError;
    }
    return undefined;
  })();
  assert.is(error?.position, 17);
  assert.match(error?.message ?? '', /expected a JSON value, found "," at line 3, column 5/);
});

test('should agree with JSON.parse on many random token sequences', () => {
  const pieces = ['{', '}', '[', ']', ',', ':', '"k"', '"v\\n"', '1', '-2.5e3', 'true', 'null', ' ', '\n', '"', '\\', '0', '.', 'e'];
  let seed = 12345;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  let valid = 0;
  for (let round = 0; round < 20000; round++) {
    let text = '';
    for (let k = 1 + random(8); k > 0; k--) text += pieces[random(pieces.length)];
    const expected = accepts(text);
    let actual = true;
    try {
      JsonText.parse(text);
    } catch (e) {
      if (!(e instanceof JsonTextError)) throw e;
      actual = false;
    }
    assert.is(actual, expected, JSON.stringify(text));
    if (expected) valid++;
  }
  assert.ok(valid > 500, `only ${valid} valid samples`);
});

test('should agree with JSON.parse on random indented token sequences, and name the place in the text given', () => {
  // Mostly whitespace, as morphir-elm writes IR: the path that compacts before it checks.
  const pieces = ['{', '}', '[', ']', ',', ':', '"k"', '"a b"', '"q\\"', '"\\\\"', '1', '-2.5e3', 'true', 'null', '"', '\\', '0', '.', 'e', '-', 'x'];
  const spaces = ['\n        ', '    ', ' ', '\t', '', '\r\n  '];
  let seed = 777;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  let valid = 0;
  for (let round = 0; round < 20000; round++) {
    let text = '        ';
    for (let k = 1 + random(8); k > 0; k--) text += pieces[random(pieces.length)] + spaces[random(spaces.length)] + spaces[random(spaces.length)];
    let actual: JsonText | JsonTextError;
    try {
      actual = JsonText.parse(text);
    } catch (e) {
      if (!(e instanceof JsonTextError)) throw e;
      actual = e;
    }
    const expected = accepts(text);
    assert.is(actual instanceof JsonText, expected, JSON.stringify(text));
    if (actual instanceof JsonText) {
      valid++;
      assert.not.match(actual.compactText().replace(/"(?:[^"\\]|\\.)*"/g, '""'), /[ \t\n\r]/, JSON.stringify(text));
      assert.equal(JSON.parse(actual.compactText()), JSON.parse(text));
    } else {
      assert.ok(actual.position <= text.length, 'a position in the text given');
    }
  }
  assert.ok(valid > 300, `only ${valid} valid samples`);
  const indented = `{\n${' '.repeat(40)}"a": [1,\n${' '.repeat(40)}2,,]\n}`;
  assert.throws(() => JsonText.parse(indented), (e: unknown) => e instanceof JsonTextError && e.position === indented.indexOf(',,') + 1 && /line 3, column 43/.test(e.message));
});

test('should check deeply nested documents without a deep call stack', () => {
  const depth = 200_000;
  const json = JsonText.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  assert.is(json.kind, 'array');
  assert.throws(() => JsonText.parse(`${'['.repeat(depth)}${']'.repeat(depth - 1)}`), (e: unknown) => e instanceof JsonTextError);
});

test('should refuse, in the same pass, a container opening level maxDepth + 1, where findExcessNesting finds it', () => {
  const texts = [
    '[[[[]]]]', // the innermost, empty, is a level too
    '{"a":{"b":[1,{"c":{}}]}}',
    '[1,"[[[[",[2,[3,["]]]]"]]]]',
    '{\n  "a": [\n    [\n      [ {} ]\n    ]\n  ]\n}', // indented: the offset in the text as given
  ];
  for (const text of texts) {
    for (let maxDepth = 1; maxDepth <= 5; maxDepth++) {
      const excess = findExcessNesting(text, maxDepth);
      let position = -1;
      try {
        JsonText.parse(text, { maxDepth });
      } catch (error) {
        assert.instance(error, JsonTextError);
        position = (error as JsonTextError).position;
        assert.match((error as Error).message, `nests more than ${maxDepth} levels deep`);
      }
      assert.is(position, excess, `${text} at ${maxDepth}`);
    }
  }
});

test('should keep the UTF-8 bytes it was given only for a compact text', () => {
  const bytes = new TextEncoder().encode('{"a":1}');
  assert.is(JsonText.parse('{"a":1}', { utf8: bytes }).compactUtf8(), bytes);
  assert.is(JsonText.parse('{"a": 1}', { utf8: bytes }).compactUtf8(), undefined);
  assert.is(JsonText.parse('{"a":1}').compactUtf8(), undefined);
});

test.run();
