import { suite } from 'uvu';
import * as assert from 'uvu/assert';
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

Redact.run();
