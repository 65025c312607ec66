import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Diagnostic, Range } from './diagnostics.ts';

const range = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

const Ranges = suite('Range');

Ranges('should accept zero-based ranges, empty ones included', () => {
  assert.ok(Range.safeParse(range(0, 0, 0, 0)).success);
  assert.ok(Range.safeParse(range(3, 10, 3, 15)).success);
  assert.ok(Range.safeParse(range(2, 40, 3, 0)).success);
});

Ranges('should refuse negative, fractional and one-based (line/column) positions', () => {
  assert.not.ok(Range.safeParse(range(-1, 0, 0, 0)).success);
  assert.not.ok(Range.safeParse(range(0, 0.5, 1, 0)).success);
  assert.not.ok(Range.safeParse({ start: { line: 1, column: 1 }, end: { line: 1, column: 2 } }).success);
});

Ranges('should refuse an end before its start', () => {
  assert.not.ok(Range.safeParse(range(3, 10, 3, 2)).success);
  assert.not.ok(Range.safeParse(range(4, 0, 3, 9)).success);
});

Ranges.run();

const Diagnostics = suite('Diagnostic');

Diagnostics('should accept the spec fields and keep unknown ones', () => {
  const d = Diagnostic.parse({
    severity: 'hint',
    code: 'elm.unused',
    message: 'Unused',
    location: { uri: 'file:///a.elm', range: range(1, 0, 1, 3) },
    related: [{ uri: 'file:///b.elm', range: range(0, 0, 0, 1) }, { location: { uri: 'file:///c.elm', range: range(0, 0, 0, 1) }, message: 'declared here' }],
    data: { fix: 'remove' },
    tags: [1],
  });
  assert.equal((d as Record<string, unknown>).tags, [1]);
  assert.equal(d.data, { fix: 'remove' });
});

Diagnostics('should refuse an unknown severity or a missing message', () => {
  assert.not.ok(Diagnostic.safeParse({ severity: 'fatal', message: 'x' }).success);
  assert.not.ok(Diagnostic.safeParse({ severity: 'error' }).success);
});

Diagnostics.run();
