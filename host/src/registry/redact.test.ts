import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../protocol/json-depth.ts';
import { JsonText } from '../protocol/json-text.ts';
import { REDACTED, createRedactor } from './redact.ts';

const Redact = suite('registry :: createRedactor');

Redact('should replace a value wherever it occurs, longest value first', () => {
  const redactor = createRedactor();
  assert.not.ok(redactor.active);
  assert.is(redactor.scrub('nothing to hide'), 'nothing to hide');
  redactor.add('abc');
  redactor.add('abcdef');
  redactor.add('');
  assert.ok(redactor.active);
  assert.is(redactor.scrub('x abcdef y abc z'), `x ${REDACTED} y ${REDACTED} z`);
});

Redact('should scrub a value inside printed JSON, where quotes, backslashes and control characters are escaped', () => {
  const secret = 'p"a\\s\ts\u0001';
  const redactor = createRedactor();
  redactor.add(secret);
  const line = JSON.stringify({ written: [`out/${secret}/x.json`], error: { message: `bad ${secret}` } }, null, 2);
  const scrubbed = redactor.scrub(line);
  assert.not.ok(scrubbed.includes(JSON.stringify(secret).slice(1, -1)));
  assert.equal(JSON.parse(scrubbed).written, [`out/${REDACTED}/x.json`]);
  assert.is(redactor.scrub(`plain ${secret}`), `plain ${REDACTED}`);
});

Redact('should scrub keys and values of JSON values, also a JsonText', () => {
  const redactor = createRedactor();
  redactor.add('tok');
  assert.equal(redactor.scrubValue({ tok: ['a tok', 1, null], n: JsonText.parse('{"k":"tok"}') }), { [REDACTED]: [`a ${REDACTED}`, 1, null], n: { k: REDACTED } });
});


/** Runs `fn` under `frames` extra stack frames, as deep inside a host as a value may be scrubbed. */
function under(frames: number, fn: () => unknown): unknown {
  return frames === 0 ? fn() : (under(frames - 1, fn) as unknown);
}

Redact('should scrub a value nested as deep as the host reads, with stack to spare :: deep', () => {
  const redactor = createRedactor();
  redactor.add('tok-123');
  for (const [open, leaf, close] of [['{"a":', '"tok-123"', '}'], ['[', '"tok-123"', ']']]) {
    const value = JSON.parse(`${(open as string).repeat(MAX_JSON_DEPTH)}${leaf}${(close as string).repeat(MAX_JSON_DEPTH)}`);
    const scrubbed = under(1_000, () => redactor.scrubValue(value));
    assert.ok(JSON.stringify(scrubbed).includes(REDACTED));
    assert.not.ok(JSON.stringify(scrubbed).includes('tok-123'));
  }
});

Redact('should keep a member named __proto__ as a member :: hostile', () => {
  const redactor = createRedactor();
  redactor.add('tok-123');
  const scrubbed = redactor.scrubValue(JSON.parse('{"__proto__":{"polluted":"tok-123"},"b":1}')) as Record<string, unknown>;
  assert.equal(Object.keys(scrubbed), ['__proto__', 'b']);
  assert.is(JSON.stringify(scrubbed), `{"__proto__":{"polluted":"${REDACTED}"},"b":1}`);
  assert.is(Object.getPrototypeOf(scrubbed), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

Redact.run();
