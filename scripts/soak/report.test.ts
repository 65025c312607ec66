import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatReport, growth, plotSvg } from './report.ts';
import type { Checkpoint, SoakResult } from './run-soak.ts';
import { createTally } from './tally.ts';

const MB = 1024 * 1024;
const checkpoint = (sessions: number, rssMb: number, heapMb: number): Checkpoint => ({
  sessions,
  elapsedMs: sessions * 10,
  sample: { rss: rssMb * MB, heapUsed: heapMb * MB, external: 0, arrayBuffers: 0, sessions: 0, slots: 0, connections: 0, resources: { PipeWrap: 2 } },
});

const Growth = suite('growth');

Growth('should measure from the first checkpoint at or after the baseline to the last', () => {
  const g = growth([checkpoint(50, 90, 9), checkpoint(100, 100, 10), checkpoint(200, 111, 10.5)], 100);
  assert.is(g?.baseline.sessions, 100);
  assert.ok(Math.abs((g?.rss ?? 0) - 0.11) < 1e-9);
  assert.ok(Math.abs((g?.heap ?? 0) - 0.05) < 1e-9);
});

Growth('should have nothing to say with no checkpoint after the baseline', () => {
  assert.is(growth([], 100), undefined);
  assert.is(growth([checkpoint(100, 100, 10)], 100), undefined);
  assert.is(growth([checkpoint(50, 100, 10)], 100), undefined);
});

Growth.run();

const Format = suite('formatReport / plotSvg');

Format('should print every checkpoint, the counts by error code and the verdict', () => {
  const tally = createTally();
  tally.served = 2;
  tally.record({ jsonrpc: '2.0', id: 1, result: {} });
  tally.record({ jsonrpc: '2.0', id: 2, error: { code: -32010, message: 'x', data: { localCode: 'ERR_TIMEOUT' } } });
  tally.record({ jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'internal' } });
  tally.record('unanswered');
  const result: SoakResult = { tally, checkpoints: [checkpoint(100, 100, 10), checkpoint(200, 104, 10)], elapsedMs: 2_000, timedOut: false };
  const text = formatReport(result, 100);
  assert.is(text.split('\n').filter((line) => /^\s+\d+\s+\d/.test(line)).length, 2);
  assert.match(text, /-32010\/ERR_TIMEOUT × 1, -32603 × 1/);
  assert.match(text, /1 untyped errors, 1 unanswered/);
  assert.match(text, /RSS 100\.0 → 104\.0 MB \(\+4\.0 %\)/);
});

Format('should draw one polyline point per checkpoint and escape the title', () => {
  const svg = plotSvg([checkpoint(0, 90, 9), checkpoint(100, 100, 10), checkpoint(200, 101, 10)], 'a < b & c');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, /a &lt; b &amp; c/);
  const polylines = [...svg.matchAll(/points="([^"]*)"/g)].map((m) => m[1].split(' ').length);
  assert.equal(polylines, [3, 3]);
});

Format.run();
