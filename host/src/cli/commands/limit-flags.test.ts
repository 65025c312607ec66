import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../exit-codes.ts';
import { parseDuration, parseLimitFlags, parseSize } from './limit-flags.ts';

const usageMessage = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as Error).message;
  }
  assert.unreachable('expected a usage error');
  return '';
};

const Units = suite('parseSize / parseDuration');

Units('should read binary, decimal and bare sizes :: units', () => {
  assert.is(parseSize('--max-memory', '512MiB'), 512 * 1024 * 1024);
  assert.is(parseSize('--max-memory', '2GiB'), 2 * 1024 ** 3);
  assert.is(parseSize('--max-memory', '1.5 GiB'), 1.5 * 1024 ** 3);
  assert.is(parseSize('--max-memory', '64k'), 65_536);
  assert.is(parseSize('--max-message', '256MB'), 256_000_000);
  assert.is(parseSize('--max-message', '67108864'), 67_108_864);
});

Units('should read durations with a unit :: units', () => {
  assert.is(parseDuration('--call-timeout', '500ms'), 500);
  assert.is(parseDuration('--call-timeout', '120s'), 120_000);
  assert.is(parseDuration('--call-timeout', '2.5s'), 2_500);
  assert.is(parseDuration('--call-timeout', '5m'), 300_000);
  assert.is(parseDuration('--call-timeout', '1h'), 3_600_000);
});

Units('should refuse malformed values, naming the flag :: hostile', () => {
  assert.match(usageMessage(() => parseSize('--max-memory', 'lots')), /--max-memory expects a size/);
  assert.match(usageMessage(() => parseSize('--max-memory', '-1MiB')), /--max-memory/);
  assert.match(usageMessage(() => parseSize('--max-memory', '5 parsecs')), /"5 parsecs"/);
  assert.match(usageMessage(() => parseSize('--max-message', '1e9')), /--max-message/);
  assert.match(usageMessage(() => parseDuration('--call-timeout', '120')), /add a unit: 120s or 120ms/);
  assert.match(usageMessage(() => parseDuration('--call-timeout', 'soon')), /--call-timeout expects a duration/);
  assert.match(usageMessage(() => parseDuration('--call-timeout', '')), /--call-timeout/);
});

const Flags = suite('parseLimitFlags');

Flags('should return only the limits given', () => {
  assert.equal(parseLimitFlags({}), {});
  assert.equal(parseLimitFlags({ 'max-memory': '1GiB', 'call-timeout': '120s', 'max-message': '256MiB' }), {
    maxMemoryBytes: 1024 ** 3,
    callTimeoutMs: 120_000,
    maxMessageBytes: 256 * 1024 ** 2,
  });
});

Flags('should refuse values out of range with the bounds and the default :: hostile', () => {
  assert.match(usageMessage(() => parseLimitFlags({ 'max-memory': '0' })), /--max-memory must be between 65536 bytes and 4294967296 bytes, got 0 bytes \(default 268435456 bytes\)/);
  assert.match(usageMessage(() => parseLimitFlags({ 'max-memory': '5GiB' })), /--max-memory must be between/);
  assert.match(usageMessage(() => parseLimitFlags({ 'max-message': '1GiB' })), /--max-message must be between 1024 bytes and 535822336 bytes/);
  assert.match(usageMessage(() => parseLimitFlags({ 'call-timeout': '0ms' })), /--call-timeout must be between 1 ms/);
  assert.match(usageMessage(() => parseLimitFlags({ 'call-timeout': '30d' })), /--call-timeout expects a duration/);
  assert.match(usageMessage(() => parseLimitFlags({ 'call-timeout': '1000h' })), /--call-timeout must be between/);
});

Units.run();
Flags.run();
