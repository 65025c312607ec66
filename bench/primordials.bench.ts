/**
 * What the guard of the built-ins costs (issue 33): the PDK's `pristine` (its answer path) and
 * `withBuiltins` (the engine's console and URL) in the wasm engine, on a small formatting job
 * run bare and under each guard in the same instance (the script, evaluated on every export
 * call as the runner does, costs the same in each and is subtracted with the empty loop), and the guard's share of a guarded
 * `console.log` and `new URL(...).href`. Ratios within one run; asserts nothing.
 *
 *   node --import tsx bench/primordials.bench.ts
 */
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { engineWith } from '../build/engine/v8-compare.ts';
import { ROOT, Report, median, x } from './lib.ts';

const N = 2000;
const ROUNDS = 9;

const guard = buildSync({
  stdin: { contents: `import { pristine, withBuiltins } from './guest-pdk/src/pristine.ts'; globalThis.__guard = { pristine, withBuiltins };`, resolveDir: ROOT, loader: 'ts' },
  bundle: true, format: 'iife', target: 'es2020', write: false, logLevel: 'silent',
}).outputFiles[0]!.text;

const SOURCE = `${guard}
(() => {
const { pristine: guardAll, withBuiltins: guardReplaced } = globalThis.__guard;
const value = { a: [1, 'x'], b: { c: 2 } };
const work = () => JSON.stringify(value).replace(/"/g, "'").split(',').map((s) => s.trim()).join(', ');
const noop = () => 0;
const loop = (fn) => () => { for (let i = 0; i < ${N}; i++) fn(); Host.outputString('ok'); };
globalThis.bare = loop(work);
globalThis.guarded = loop(() => guardReplaced(work));
globalThis.pristined = loop(() => guardAll(work));
globalThis.guardOnly = loop(() => guardReplaced(noop));
globalThis.pristineOnly = loop(() => guardAll(noop));
globalThis.nothing = loop(noop);
globalThis.log = loop(() => console.log(value));
globalThis.url = loop(() => new URL('../b c?q=1', 'https://example.com/x/y').href);
})();
`;

const { run } = await engineWith(SOURCE);
// Rounds interleave the cases, so a shared machine's load falls on all of them alike.
const CASES = ['nothing', 'bare', 'guarded', 'pristined', 'guardOnly', 'pristineOnly', 'log', 'url'];
const times: Record<string, number[]> = Object.fromEntries(CASES.map((c) => [c, []]));
for (const c of CASES) run(c);
for (let r = 0; r < ROUNDS; r++) {
  for (const c of CASES) {
    const t0 = performance.now();
    run(c);
    times[c]!.push(((performance.now() - t0) * 1000) / N);
  }
}
const us = Object.fromEntries(CASES.map((c) => [c, median(times[c]!)])) as Record<string, number>;
const loopUs = us.nothing!;
const net = (f: string): number => Math.max(us[f]! - loopUs, 0);

const report = new Report('primordials');
const f = (v: number): string => `${v.toFixed(1)} µs`;
report.row('formatting job, bare', f(net('bare')));
report.row('  under withBuiltins (console, URL)', f(net('guarded')), f(net('bare')), `${x(net('guarded') / net('bare'))} (guarded / bare)`);
report.row('  under pristine (the PDK answer path)', f(net('pristined')), f(net('bare')), `${x(net('pristined') / net('bare'))} (guarded / bare)`);
report.row('withBuiltins alone, nothing replaced', f(net('guardOnly')));
report.row('pristine alone, nothing replaced', f(net('pristineOnly')));
report.row('console.log(small object), guarded', f(net('log')), f(net('guardOnly')), `${x(net('guardOnly') / net('log'))} (guard share)`);
report.row('new URL(...).href, guarded (2 guarded calls)', f(net('url')), f(2 * net('guardOnly')), `${x((2 * net('guardOnly')) / net('url'))} (guard share)`);
report.note(`wasm engine (${join('.cache', 'engine')}), ${N} calls per export call, median of ${ROUNDS}; the empty loop and the script's evaluation (${f(loopUs)} per call) subtracted`);
report.print();
