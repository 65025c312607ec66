/**
 * A hand-written SVG line chart for benches (no plotting dependency): linear axes with round
 * ticks, one polyline with point markers per series, a legend, and values as tooltips.
 */

/** One line of the chart. */
export interface Series {
  name: string;
  /** Any SVG colour. */
  color: string;
  /** [x, y] points; NaN or missing y values (a failed run) are left out. */
  points: readonly (readonly [number, number])[];
}

/** What {@link lineChartSvg} draws. */
export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  width?: number;
  height?: number;
}

const escape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Round tick values covering [0, max]: steps of 1, 2 or 5 × 10^n, about five of them. */
export function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw) as number;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if ((out.at(-1) as number) < max) out.push(Number(((out.at(-1) as number) + step).toPrecision(12)));
  return out;
}

const label = (v: number): string => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(Number(v.toPrecision(3))));

/**
 * The chart as a standalone SVG document.
 *
 * @example
 * writeFileSync('plot.svg', lineChartSvg({ title: 'time', xLabel: 'types', yLabel: 's', series: [{ name: 'wasm', color: '#c33', points: [[250, 1.2]] }] }));
 */
export function lineChartSvg(chart: LineChart): string {
  const width = chart.width ?? 820;
  const height = chart.height ?? 440;
  const margin = { top: 48, right: 230, bottom: 56, left: 70 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const finite = chart.series.flatMap((s) => s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)));
  const xTicks = ticks(Math.max(1, ...finite.map(([x]) => x)));
  const yTicks = ticks(Math.max(0, ...finite.map(([, y]) => y)));
  const xMax = xTicks.at(-1) as number;
  const yMax = yTicks.at(-1) as number;
  const px = (x: number): number => margin.left + (x / xMax) * plotW;
  const py = (y: number): number => margin.top + plotH - (y / yMax) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2 - margin.right / 2 + margin.left / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${py(t)}" y2="${py(t)}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${margin.left - 8}" y="${py(t) + 4}" text-anchor="end">${label(t)}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line x1="${px(t)}" x2="${px(t)}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="#333"/>`);
    out.push(`<text x="${px(t)}" y="${margin.top + plotH + 20}" text-anchor="middle">${label(t)}</text>`);
  }
  out.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${margin.left + plotW / 2}" y="${height - 14}" text-anchor="middle">${escape(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`);
  chart.series.forEach((s, i) => {
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    if (pts.length > 1) out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of pts) {
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${s.color}"><title>${escape(`${s.name}: ${label(x)} → ${label(y)}`)}</title></circle>`);
    }
    const ly = margin.top + 10 + i * 22;
    const lx = margin.left + plotW + 18;
    out.push(`<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="3"/>`);
    out.push(`<text x="${lx + 28}" y="${ly + 4}">${escape(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
