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

const Lines = suite('registry :: createRedactor :: secrets across lines and chunks');

const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
  'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
  'ab=',
  '-----END PRIVATE KEY-----',
].join('\n');
const pemRedactor = () => {
  const redactor = createRedactor();
  redactor.add(PEM);
  return redactor;
};
const leaks = (text: string): string[] => PEM.split('\n').filter((line) => line.length >= 8 && text.includes(line));

Lines('should redact each line of a multi-line secret printed line by line, or joined another way :: multi-line', () => {
  const redactor = pemRedactor();
  const printed = ['[ext] resolved secret value ' + PEM.split('\n')[0], ...PEM.split('\n').slice(1)].map((line) => redactor.scrub(line));
  assert.equal(leaks(printed.join('\n')), []);
  const crash = redactor.scrub(`Its last log lines: ${JSON.stringify(PEM.split('\n').slice(1, 4).join(' | '))}.`);
  assert.equal(leaks(crash), []);
  assert.ok(crash.includes(REDACTED));
  assert.is(redactor.scrub(PEM), REDACTED, 'the whole value is one replacement');
  assert.is(redactor.scrub(JSON.stringify(PEM)), `"${REDACTED}"`, 'also JSON-escaped');
});

Lines('should redact a secret broken across lines in one text, raw or JSON-escaped :: split', () => {
  const redactor = createRedactor();
  const token = 'ghp_9Qz7xY2wV5uT8sR1qP4oN6mL3kJ0hG';
  redactor.add(token);
  const wrapped = `token: ${token.slice(0, 12)}\n${token.slice(12, 24)}\r\n${token.slice(24)} end`;
  assert.is(redactor.scrub(wrapped), `token: ${REDACTED} end`);
  assert.not.match(redactor.scrub(JSON.stringify(wrapped)), /9Qz7|V5uT|kJ0h/);
});

Lines('should redact the parts of a secret split across separate lines, as a stream of log lines is :: chunks', () => {
  const redactor = createRedactor();
  const token = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
  redactor.add(token);
  // A process's stderr cut at 16 K characters, or a guest logging a secret in three calls.
  const parts = [`prefix ${token.slice(0, 14)}`, token.slice(14, 28), `${token.slice(28)} suffix`];
  const shown = parts.map((line) => redactor.scrub(line));
  assert.equal(shown, [`prefix ${REDACTED}`, REDACTED, `${REDACTED} suffix`]);
});

Lines('should leave text that merely shares short pieces with a secret alone :: precision', () => {
  const redactor = pemRedactor();
  for (const text of ['ab=', 'a line with -----BEGIN in it', 'MIIE', 'nothing secret here at all', '{', '}']) assert.is(redactor.scrub(text), text);
});

Lines.run();
