import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { JsonText } from '../protocol/json-text.ts';
import { stringifyMessage } from './json-text.ts';

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
