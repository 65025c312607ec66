import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonText } from '../protocol/json-text.ts';
import { encodeMessage, stringifyMessage } from './json-text.ts';
import { encodeUtf8 } from './utf8.ts';

const test = suite('stringifyMessage');

const request = (params: unknown) => ({ jsonrpc: '2.0', id: 7, method: 'morphir.backend.generate', params });

test('should write what JSON.stringify writes when params hold no JsonText', () => {
  for (const message of [request({ ir: { a: [1, 'x'] }, target: 'avro' }), request([1, 2]), request(undefined), { jsonrpc: '2.0', id: 1, result: { ok: true } }, null]) {
    assert.is(stringifyMessage(message), JSON.stringify(message));
  }
});

test('should write a JsonText member as its compacted text, in its place', () => {
  const text = '{"formatVersion":3, "distribution":["Library",[["pkg"]],{"n":1.50,"s":"a b"}]}\n';
  const ir = JsonText.parse(text);
  const message = request({ target: 'avro', ir, options: { x: '\u0000mep' } });
  const out = stringifyMessage(message);
  assert.ok(out.includes('"ir":{"formatVersion":3,"distribution":["Library",[["pkg"]],{"n":1.50,"s":"a b"}]}'), out);
  assert.ok(out.indexOf('"target"') < out.indexOf('"ir"') && out.indexOf('"ir"') < out.indexOf('"options"'));
  assert.equal(JSON.parse(out), JSON.parse(JSON.stringify(message)));
  // Indented text is written from its value: compact too, and fit for line-delimited framing.
  const indented = JsonText.parse(JSON.stringify(JSON.parse(text), null, 4));
  const written = stringifyMessage(request({ ir: indented }));
  assert.ok(written.includes('"ir":{"formatVersion":3,"distribution":["Library",[["pkg"]],{"n":1.5,"s":"a b"}]}'), written);
  assert.not.ok(out.includes('\n') || written.includes('\n'));
});

test('should splice several members, and leave nested ones to toJSON', () => {
  const a = JsonText.parse('{"a":1}');
  const b = JsonText.parse('[true]');
  const both = stringifyMessage(request({ a, b, nested: { c: JsonText.parse('"c"') } }));
  assert.equal(JSON.parse(both).params, { a: { a: 1 }, b: [true], nested: { c: 'c' } });
});

test('should fall back to plain serialization when the data holds the marker text', () => {
  const message = request({ ir: JsonText.parse('{"k":"v"}'), label: '\u0000mep:json-text:0' });
  assert.is(stringifyMessage(message), JSON.stringify(message));
});

test.run();

const encoded = suite('encodeMessage');
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const decoded = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

encoded('should encode every message as encodeUtf8 of stringifyMessage, byte for byte', () => {
  const ascii = '{"formatVersion":3,"distribution":["Library",[["pkg"]],{"n":1.50}]}';
  const withBytes = (): JsonText => JsonText.parse(ascii, { utf8: utf8(ascii) });
  for (const message of [
    request({ ir: { a: [1, 'x'] }, target: 'avro' }),
    request({ target: 'avro', ir: withBytes(), options: { x: 'é \ud83d\ude00' } }),
    request({ ir: withBytes(), other: withBytes(), target: '\u{1f600}' }),
    request({ ir: withBytes(), plain: JsonText.parse('{"s":"é"}') }), // one without bytes: the plain way
    request({ ir: withBytes(), options: { x: '\u0000mep:json-text:0' } }), // the marker in the data: the plain way
    request({ ir: JsonText.parse(ascii + ' \n') }),
    { jsonrpc: '2.0', id: 1, result: { ok: true } },
    null,
  ]) {
    assert.equal(encodeMessage(message), encodeUtf8(stringifyMessage(message)));
  }
});

encoded('should copy a member\'s own bytes in, in a buffer of its own, and keep them', () => {
  const text = '{"a":[1,2,{"b":"c"}]}';
  const bytes = utf8(text);
  // Bytes standing for another text show which path wrote the message (the parse's caller vouches they are the text's).
  const probe = JsonText.parse(text, { utf8: utf8('{"a":[1,2,{"b":"C"}]}') });
  assert.is(decoded(encodeMessage(request({ ir: probe, target: 'avro' }))), '{"jsonrpc":"2.0","id":7,"method":"morphir.backend.generate","params":{"ir":{"a":[1,2,{"b":"C"}]},"target":"avro"}}');
  const json = JsonText.parse(text, { utf8: bytes });
  const out = encodeMessage(request({ ir: json }));
  assert.is(out.byteOffset, 0);
  assert.is(out.buffer.byteLength, out.length);
  assert.is.not(out.buffer, bytes.buffer);
  assert.is(json.compactUtf8(), bytes);
  // Indented text has no bytes of its compact text: encoded from the text.
  assert.is(JsonText.parse(' [1, 2]', { utf8: utf8(' [1, 2]') }).compactUtf8(), undefined);
});

encoded('should refuse params nested past the depth MEP hosts read with ERR_LIMIT naming maxJsonDepth, nothing sent (not a RangeError)', () => {
  // A hostile IR handed to an embed as an object (a page pasting JSON, a library caller): 100,000
  // levels overflowed Node's stack while the request was written, an untyped RangeError; in
  // Chromium (a larger stack) it was sent, past the 2,000 levels any host reads back.
  const nested = (levels: number): unknown => {
    let deep: unknown = 1;
    for (let i = 0; i < levels; i++) deep = [deep];
    return deep;
  };
  for (const [write, deep] of [encodeMessage, stringifyMessage].flatMap((w) => [[w, nested(2_100)], [w, nested(100_000)]] as const)) {
    try {
      write(request({ ir: { formatVersion: 3, deep }, target: 't' }));
      assert.unreachable('a message too deep to write must be refused');
    } catch (error) {
      assert.is((error as { code?: unknown }).code, 'ERR_LIMIT', String(error));
      assert.is((error as { data: { limit: string } }).data.limit, 'maxJsonDepth');
      assert.match((error as Error).message, /nothing was sent.*flatten/);
    }
  }
  assert.ok(encodeMessage(request({ ir: { formatVersion: 3, deep: nested(1_990) }, target: 't' })).length > 0);
});

encoded.run();
