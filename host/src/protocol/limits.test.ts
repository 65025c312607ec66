import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ExtensionLimits, LIMIT_KNOBS, formatLimit, raiseAdvice, userLimitOf } from './limits.ts';

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
