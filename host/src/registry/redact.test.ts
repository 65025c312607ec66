import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_JSON_DEPTH } from '../protocol/json-depth.ts';
import { createRedactor, REDACTED } from './redact.ts';

const Redact = suite('createRedactor :: scrubValue');

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
