import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compiledCodeCache } from './early-module.ts';

test('should turn the compiled-code cache off for 0, off, false, no and any value it does not know', () => {
  for (const value of ['0', 'off', 'OFF', 'false', 'no', 'disable', 'of', '2']) {
    assert.is(compiledCodeCache(value), undefined, value);
  }
});

test('should keep the compiled-code cache on when unset or on, and eager only for eager', () => {
  for (const value of [undefined, '', '1', 'on', 'true', 'yes', ' On ']) {
    const place = compiledCodeCache(value);
    assert.ok(place?.dir.endsWith('wasm-code'), String(value));
    assert.is(place?.eager, undefined, String(value));
  }
  assert.is(compiledCodeCache('eager')?.eager, true);
});

test.run();
