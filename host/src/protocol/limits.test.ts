import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ExtensionLimits, LIMIT_KNOBS, formatLimit, raiseAdvice, raiseAllAdvice, suggestedLimit, userLimitOf } from './limits.ts';

const Advice = suite('raiseAdvice');

Advice('should name the mep option and the extension.json field of each limit', () => {
  for (const [limit, knob] of Object.entries(LIMIT_KNOBS)) {
    const advice = raiseAdvice(limit);
    assert.ok(advice.includes(knob.option), advice);
    assert.ok(advice.includes(`"limits": {"${knob.field}": `), advice);
  }
});

Advice('should map the transports\' internal names to the user\'s limit', () => {
  assert.is(userLimitOf('maxResponseBytes'), 'maxMessageBytes');
  assert.is(userLimitOf('maxRequestBytes'), 'maxMessageBytes');
  assert.is(userLimitOf('timeoutMs'), 'callTimeoutMs');
  assert.match(raiseAdvice('maxResponseBytes'), /--max-message 128MiB .*"maxMessageBytes": 134217728/);
  assert.is(raiseAdvice('somethingElse'), '');
});

Advice('should suggest twice the current value, within the ceiling', () => {
  assert.match(raiseAdvice('maxMemoryBytes', 256 * 1024 * 1024), /--max-memory 512MiB .*"maxMemoryBytes": 536870912/);
  assert.match(raiseAdvice('callTimeoutMs', 30_000), /--call-timeout 60s .*"callTimeoutMs": 60000/);
  assert.match(raiseAdvice('callTimeoutMs', 150), /--call-timeout 300ms/);
  assert.match(raiseAdvice('maxMemoryBytes', 3 * 1024 ** 3), /--max-memory 4GiB/);
  assert.match(raiseAdvice('maxMessageBytes', 400 * 1024 ** 2), /--max-message 511MiB/);
});

Advice('should suggest the power of two above a measured size, so that one retry is enough', () => {
  // The case: a 209,715,329-byte answer refused at the 64 MiB default.
  assert.match(raiseAdvice('maxMessageBytes', 64 * 1024 ** 2, 209_715_329), /--max-message 256MiB .*"maxMessageBytes": 268435456/);
  assert.is(suggestedLimit('maxMessageBytes', 64 * 1024 ** 2, 128 * 1024 ** 2), 256 * 1024 ** 2, 'above, not equal to, a size that is a power of two');
  assert.is(suggestedLimit('maxMessageBytes', 4096, 8300), 16_384);
  assert.is(suggestedLimit('maxMessageBytes', 64 * 1024 ** 2, 300 * 1024 ** 2), 511 * 1024 ** 2, 'capped at the ceiling, which still fits');
  assert.is(suggestedLimit('maxMemoryBytes', 256 * 1024 ** 2, 70_000), 256 * 1024 ** 2, 'never below the current value');
  for (const needed of [1, 1000, 65_537, 1e6, 3e8]) {
    const value = suggestedLimit('maxMessageBytes', 1024, needed) as number;
    assert.ok(value > needed && value <= 2 * needed + 1024, `${needed} -> ${value}`);
  }
});

Advice('should say when no limit is large enough :: hostile', () => {
  assert.is(suggestedLimit('maxMessageBytes', 64 * 1024 ** 2, 600 * 1024 ** 2), undefined);
  const advice = raiseAdvice('maxMessageBytes', 64 * 1024 ** 2, 600 * 1024 ** 2);
  assert.match(advice, /No --max-message is large enough: it allows at most 511MiB/);
  assert.not.match(advice, /Raise it/);
});

Advice('should name every limit of one failure in one sentence', () => {
  const advice = raiseAllAdvice([
    { limit: 'maxMemoryBytes', current: 256 * 1024 ** 2, needed: 680 * 1024 ** 2 },
    { limit: 'maxMessageBytes', current: 64 * 1024 ** 2, needed: 209_715_329 },
  ]);
  assert.match(advice, /^Raise them with --max-memory 1GiB --max-message 256MiB on the mep command line, or "limits": \{"maxMemoryBytes": 1073741824, "maxMessageBytes": 268435456\}/);
  assert.match(raiseAllAdvice([{ limit: 'maxMemoryBytes', current: 1024 ** 3 }]), /^Raise it with --max-memory 2GiB/);
});

Advice('should format limits the way the options read them', () => {
  assert.is(formatLimit('maxMemoryBytes', 1.5 * 1024 ** 3), '1.5GiB');
  assert.is(formatLimit('maxMessageBytes', 2048), '2KiB');
  assert.is(formatLimit('maxMessageBytes', 1000), '1000');
  assert.is(formatLimit('callTimeoutMs', 120_000), '120s');
});

const Schema = suite('ExtensionLimits');

Schema('should accept the three limits and refuse anything else :: hostile', () => {
  assert.ok(ExtensionLimits.safeParse({ maxMemoryBytes: 512 * 1024 * 1024, callTimeoutMs: 1, maxMessageBytes: 1024 }).success);
  assert.not.ok(ExtensionLimits.safeParse({ maxMemoryBytes: -1 }).success);
  assert.not.ok(ExtensionLimits.safeParse({ callTimeoutMs: 1.5 }).success);
  assert.not.ok(ExtensionLimits.safeParse({ maxMessageBytes: 1024 ** 3 }).success);
  assert.not.ok(ExtensionLimits.safeParse({ maxMemoryBytes: '512MiB' }).success);
  assert.not.ok(ExtensionLimits.safeParse({ maxCpu: 1 }).success);
});

Advice.run();
Schema.run();
