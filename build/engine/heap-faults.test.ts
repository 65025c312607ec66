/**
 * The engine's out-of-memory paths (patches/out-of-memory.ts), on its native build
 * (./native.ts): the runner's allocator fails its Nth request and every one after (MEP_FAIL_AT,
 * native/runner.c), as memory at its cap does, and asks for a collection at the next object made,
 * as the wasm glue does at the cap; at the end it collects once more, which checks every
 * reference count. Whatever N, the script must finish or throw, never crash. The short form runs
 * a seeded stride of N over the script's run; MEP_LONG_TESTS=1 runs every N.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_CACHE_DIR } from './index.ts';
import { ensureNativeEngine } from './native.ts';
import { TEST_NATIVE_OPT } from './opt-flags.ts';

const LONG = process.env.MEP_LONG_TESTS === '1';
/** Runs of the short form, spread over the script's allocations from a seeded start. */
const SHORT_RUNS = 48;
const SEED = 32;

// Objects whose shapes are their own (keys no other object has) grow past their first slots, so
// each grows its shape in place; Maps and Sets grow their hash tables; arrays and strings grow
// beside them.
const SCRIPT = `readText(scriptArgs[0]);
const kept = [];
for (let i = 0; i < 3000; i++) {
  const o = {};
  o['a' + i] = i; o['b' + i] = [i]; o['c' + i] = 'x' + i; o['d' + i] = { i }; o['e' + i] = null;
  kept.push(o);
  if (i % 7 === 0) kept[i >> 1] = [o, String(i).repeat(i % 50)];
  if (i % 100 === 0) {
    const m = new Map(), s = new Set();
    for (let j = 0; j < 40; j++) { m.set('k' + j, { j }); s.add({ j }); }
    kept.push(m, s);
  }
}
print(kept.length);
`;

interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function runWith(runner: string, script: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(runner, [script], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const e = error as (Error & { code?: number; signal?: string }) | null;
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr });
    });
  });
}

/** The allocation count at the script's first line and at its end, from a run that fails none. */
function counts(run: Run): { start: number; end: number } {
  const start = /readText at alloc (\d+)/.exec(run.stderr);
  const end = /allocs: (\d+)/.exec(run.stderr);
  if (!start || !end) throw new Error(`the runner did not report its allocations: ${run.stderr}`);
  return { start: Number(start[1]), end: Number(end[1]) };
}

/** The N to fail at: every one (long form), or SHORT_RUNS spread evenly from a seeded offset. */
function failPoints(start: number, end: number): number[] {
  if (LONG) return Array.from({ length: end - start }, (_, i) => start + 1 + i);
  const stride = Math.max(1, Math.floor((end - start) / SHORT_RUNS));
  return Array.from({ length: SHORT_RUNS }, (_, i) => start + 1 + ((SEED + i * stride) % (end - start)));
}

const faults = suite('engine :: out of memory');

faults('should finish or throw, never crash, when any allocation of a growing heap fails', async () => {
  // At -O0, as the test262 differential builds its edited engine: they share quickjs-ng's
  // objects (./native-object.ts). The faults are the C code's paths, whatever the level: without
  // the edits, 10 of the 48 fail points crash at -O0 as at -O1 and -Os (checked 2026-12-03).
  const runner = await ensureNativeEngine({ cacheDir: ENGINE_CACHE_DIR, opt: TEST_NATIVE_OPT });
  const dir = mkdtempSync(join(tmpdir(), 'mep-heap-faults-'));
  try {
    const script = join(dir, 'grow.js');
    writeFileSync(script, SCRIPT);
    const clean = await runWith(runner, script, { MEP_FAIL_AT: '0' });
    assert.is(clean.stdout.trim(), '3060', clean.stderr);
    const { start, end } = counts(clean);
    assert.ok(end - start > SHORT_RUNS, `only ${end - start} allocations while the script ran`);
    const crashed: string[] = [];
    let threw = 0;
    const points = failPoints(start, end);
    // Two at a time: the machine's cores are shared.
    for (let i = 0; i < points.length; i += 2) {
      const runs = await Promise.all(points.slice(i, i + 2).map((n) => runWith(runner, script, { MEP_FAIL_AT: String(n) }).then((r) => ({ n, r }))));
      for (const { n, r } of runs) {
        if (r.signal !== null || (r.code !== 0 && r.code !== 1)) crashed.push(`N=${n}: ${r.signal ?? `exit ${r.code}`} ${r.stderr.slice(-300)}`);
        else if (r.code === 1) threw++;
      }
    }
    assert.equal(crashed, [], `${crashed.length} of ${points.length} runs crashed`);
    // The failures did land in the script: most runs ended on its out-of-memory error.
    assert.ok(threw > points.length / 2, `only ${threw} of ${points.length} runs threw`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

faults.run();
