/**
 * How a soak run is shown: a text table of the checkpoints (server memory after a forced GC),
 * the counts, the verdict on memory growth, and a small hand-written SVG plot of RSS and heap
 * against sessions served.
 */
import type { Checkpoint, SoakResult } from './run-soak.ts';

const MB = 1024 * 1024;
const mb = (bytes: number): string => (bytes / MB).toFixed(1);

/** Memory growth of the last checkpoint over the baseline checkpoint (the first at ≥ `after` sessions). */
export interface Growth {
  baseline: Checkpoint;
  last: Checkpoint;
  /** Relative growth of RSS and of the JS heap, e.g. 0.04 for +4 %. */
  rss: number;
  heap: number;
}

/** Growth of RSS and heap from the first checkpoint at ≥ `after` sessions to the last one. */
export function growth(checkpoints: readonly Checkpoint[], after: number): Growth | undefined {
  const baseline = checkpoints.find((c) => c.sessions >= after);
  const last = checkpoints.at(-1);
  if (baseline === undefined || last === undefined || last === baseline) return undefined;
  return { baseline, last, rss: last.sample.rss / baseline.sample.rss - 1, heap: last.sample.heapUsed / baseline.sample.heapUsed - 1 };
}

/** The checkpoint table and the counts, as printed by `npm run soak`. */
export function formatReport(result: SoakResult, baselineAfter: number): string {
  const lines: string[] = [];
  lines.push('sessions   time s   RSS MB   heap MB   external MB   live sessions   live handles');
  for (const c of result.checkpoints) {
    const handles = Object.values(c.sample.resources).reduce((a, b) => a + b, 0);
    lines.push(
      [
        String(c.sessions).padStart(8),
        (c.elapsedMs / 1000).toFixed(1).padStart(8),
        mb(c.sample.rss).padStart(8),
        mb(c.sample.heapUsed).padStart(9),
        mb(c.sample.external).padStart(13),
        String(c.sample.sessions).padStart(15),
        String(handles).padStart(14),
      ].join(' '),
    );
  }
  const t = result.tally;
  const errors = Object.entries(t.errors).sort(([a], [b]) => a.localeCompare(b));
  lines.push('');
  lines.push(`sessions served ${t.served} (opens sent ${t.opened}, ${t.abrupt} ended by an abrupt disconnect)`);
  lines.push(`calls: ${t.calls} waited for, ${t.abandoned} abandoned by abrupt disconnects`);
  lines.push(`answers: ${t.results} results, ${errors.reduce((n, [, c]) => n + c, 0)} typed errors, ${t.untyped} untyped errors, ${t.unanswered} unanswered`);
  lines.push(`errors by code: ${errors.length === 0 ? 'none' : errors.map(([k, c]) => `${k} × ${c}`).join(', ')}`);
  if (t.surprises.length > 0) lines.push(`unexpected answers: ${t.surprises.join('; ')}`);
  const g = growth(result.checkpoints, baselineAfter);
  if (g !== undefined) {
    const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
    lines.push(`memory after GC, ${g.baseline.sessions} → ${g.last.sessions} sessions: RSS ${mb(g.baseline.sample.rss)} → ${mb(g.last.sample.rss)} MB (${pct(g.rss)}), heap ${mb(g.baseline.sample.heapUsed)} → ${mb(g.last.sample.heapUsed)} MB (${pct(g.heap)})`);
  }
  lines.push(`elapsed ${(result.elapsedMs / 1000).toFixed(1)} s${result.timedOut ? ' (stopped at the time bound)' : ''}`);
  return lines.join('\n');
}

/** A 640×320 SVG line plot of RSS and heap (MB, after GC) against sessions served. */
export function plotSvg(checkpoints: readonly Checkpoint[], title: string): string {
  const width = 640;
  const height = 320;
  const left = 56;
  const right = 16;
  const top = 32;
  const bottom = 40;
  const maxX = Math.max(1, ...checkpoints.map((c) => c.sessions));
  const maxY = Math.max(1, ...checkpoints.map((c) => c.sample.rss / MB)) * 1.1;
  const x = (sessions: number): number => left + (sessions / maxX) * (width - left - right);
  const y = (megabytes: number): number => top + (1 - megabytes / maxY) * (height - top - bottom);
  const line = (value: (c: Checkpoint) => number, color: string): string =>
    `<polyline fill="none" stroke="${color}" stroke-width="2" points="${checkpoints.map((c) => `${x(c.sessions).toFixed(1)},${y(value(c) / MB).toFixed(1)}`).join(' ')}"/>`;
  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const mbValue = (maxY / 4) * i;
    ticks.push(`<line x1="${left}" x2="${width - right}" y1="${y(mbValue).toFixed(1)}" y2="${y(mbValue).toFixed(1)}" stroke="#ddd"/>`);
    ticks.push(`<text x="${left - 6}" y="${(y(mbValue) + 4).toFixed(1)}" text-anchor="end">${mbValue.toFixed(0)}</text>`);
    const sessions = Math.round((maxX / 4) * i);
    ticks.push(`<text x="${x(sessions).toFixed(1)}" y="${height - bottom + 16}" text-anchor="middle">${sessions}</text>`);
  }
  const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="18" font-size="13">${escape(title)}</text>`,
    ...ticks,
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#444"/>`,
    `<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#444"/>`,
    `<text x="${(left + width - right) / 2}" y="${height - 6}" text-anchor="middle">sessions served</text>`,
    `<text x="14" y="${(top + height - bottom) / 2}" transform="rotate(-90 14 ${(top + height - bottom) / 2})" text-anchor="middle">MB after forced GC</text>`,
    line((c) => c.sample.rss, '#c0392b'),
    line((c) => c.sample.heapUsed, '#2471a3'),
    `<text x="${width - right - 120}" y="${top + 12}" fill="#c0392b">RSS</text>`,
    `<text x="${width - right - 70}" y="${top + 12}" fill="#2471a3">JS heap</text>`,
    '</svg>',
    '',
  ].join('\n');
}
