/**
 * `npm run hostile`: the long versions of the hostile floods whose short, seeded versions run in
 * `npm test` (flood.test.ts, cli/hostile-process.test.ts). Each runs in a process of its own and
 * must keep that process's RSS under 300 MB:
 *
 * - a wasm guest sending 3 GiB of notifications (mep_notify) and of Extism log lines in one
 *   call, in worker and inline isolation, at the transport;
 * - `mep generate --verbose 2>&1 | reader` of a PDK guest logging 3 GiB (the notification
 *   budget raised to 4 GiB), and of a process extension writing 1 GiB to stderr;
 * - `mep serve` over 40 sessions of different modules in sequence: no closed session's wasm
 *   memory alive, heap after GC grows < 8 MB, RSS < 64 MB (the smaller of two runs, glibc's arenas).
 * - a process extension that stops reading its stdin and floods the host with requests for
 *   60 s (its answers held to 16 MiB, the extension held, then ended with ERR_LIMIT).
 * - `mep serve --http` sent 6 concurrent 64 MiB bodies of empty objects for slow calls: it still
 *   answers /health (its RSS is reported, not bounded here: one such body costs ~1.4 GB parsed),
 *   and no body is answered 408 (a waiting one gets 503 busy; before, Node's requestTimeout cut
 *   off bodies let in late).
 * - `mep serve --http` with 24 SSE clients of 32 MiB streams at once, half stalled, half reading in
 *   drips (seeded): every reading client gets its whole stream, RSS under 128 MiB + 300 MB.
 *
 * - a process extension writing what carries no message at the default notification budget:
 *   ndjson blank lines without end between calls, and 8 KB of extra headers on each small
 *   notification; each ends with ERR_LIMIT maxNotificationBytes (overhead-flood.ts).
 *
 * Usage: npm run hostile [-- --gib 3]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtLogFlood } from './built-guests.ts';
import { describeFlood, runFlood, runStdinJam } from './run-flood.ts';
import { retainedAcrossModules } from './serve-modules.ts';
import { describeHttpBodyBomb, runHttpBodyBomb } from './http-bodies.ts';
import { describeSseReaders, runSseReaders, sseReadersOk } from './sse-readers.ts';
import { describeOverheadFlood, runOverheadFlood } from './overhead-flood.ts';

const MB = 1024 * 1024;
const LIMIT_BYTES = 300 * MB;
const root = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({ options: { gib: { type: 'string', default: '3' } } });
const gib = Number(values.gib);

interface Row {
  name: string;
  peakRss: number;
  detail: string;
  ok: boolean;
}

/**
 * Runs `mep <args> --verbose 2>&1` into a reader that takes everything, sampling mep's peak RSS.
 * The call's deadline is raised (`--call-timeout 15m`): these cases bound memory, not speed, and
 * on two shared cores 3 GiB of logs took longer than the default 30 s (ERR_TIMEOUT, exit 3, at 437 MiB).
 */
function mepThroughPipe(args: string[]): Promise<{ code: number; peakRss: number; received: number; reason: string }> {
  const command = [process.execPath, join(root, 'bin/mep.mjs'), ...args, '--call-timeout', '15m', '--verbose'].map((a) => `'${a}'`).join(' ');
  const child = spawn('/bin/sh', ['-c', `exec ${command} 2>&1`], { stdio: ['ignore', 'pipe', 'ignore'] });
  let received = 0;
  let peak = 0;
  let tail = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    received += chunk.length;
    tail = (tail + chunk.toString('latin1', Math.max(0, chunk.length - 4096))).slice(-4096);
  });
  const sampler = setInterval(() => {
    try {
      const kb = Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      peak = Math.max(peak, kb * 1024);
    } catch {
      // It exited between two samples.
    }
  }, 20);
  // Read to the end of the pipe: mep may exit while its last output still waits in it.
  const ended = new Promise((resolve) => child.stdout?.once('end', resolve));
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearInterval(sampler);
      // What mep said on failing (its `mep generate: …` line), for the report.
      const reason = /^mep [a-z]+: .*$/m.exec(tail)?.[0] ?? '';
      void ended.then(() => resolve({ code: code ?? 1, peakRss: peak, received, reason }));
    });
  });
}

const rows: Row[] = [];
for (const via of ['notify', 'log'] as const) {
  for (const isolation of ['worker', 'inline'] as const) {
    const report = await runFlood({ mib: gib * 1024, via, isolation });
    rows.push({ name: `wasm ${via} flood, ${isolation}, ${gib} GiB`, peakRss: report.peakRss, detail: describeFlood(report), ok: report.outcome === 'answered' && report.peakRss < LIMIT_BYTES });
  }
}

const jam = await runStdinJam(60_000);
rows.push({
  name: 'process extension not reading its stdin, flooding requests for 60 s',
  peakRss: jam.peakRss,
  detail: `${jam.outcome} ${String(jam.limit)} after ${(jam.elapsedMs / 1000).toFixed(1)} s; +${((jam.peakRss - jam.baselineRss) / MB).toFixed(0)} MB`,
  ok: jam.outcome === 'ERR_LIMIT' && jam.limit === 'maxStdinBacklogBytes' && jam.peakRss - jam.baselineRss < 150 * MB,
});

for (const kind of ['blank lines', 'padded headers'] as const) {
  const flood = await runOverheadFlood(kind);
  rows.push({ name: `process extension writing ${kind} that carry no message, default budget`, peakRss: flood.peakRss, detail: describeOverheadFlood(flood), ok: flood.outcome === 'ERR_LIMIT maxNotificationBytes' && flood.peakRss < LIMIT_BYTES });
}

const dir = mkdtempSync(join(tmpdir(), 'mep-hostile-'));
try {
  const ir = join(root, 'fixtures/mep/ir/business-terms.json');
  const wasm = await mepThroughPipe(['generate', '--extension', await builtLogFlood(), '--target', 'flood', '--input', ir, '--output', join(dir, 'a'), '--option', `mib=${gib * 1024}`, '--max-notifications', `${gib + 1}GiB`]);
  rows.push({ name: `mep generate --verbose, PDK guest logging ${gib} GiB`, peakRss: wasm.peakRss, detail: `exit ${wasm.code}, ${(wasm.received / MB).toFixed(0)} MiB read ${wasm.reason}`, ok: wasm.code === 0 && wasm.peakRss < LIMIT_BYTES });
  const proc = await mepThroughPipe(['generate', '--extension', join(root, 'fixtures/extensions/stderr-flood.mjs'), '--target', 'echo', '--input', ir, '--output', join(dir, 'b'), '--option', 'stderrMib=1024']);
  rows.push({ name: 'mep generate --verbose, process writing 1 GiB to stderr', peakRss: proc.peakRss, detail: `exit ${proc.code}, ${(proc.received / MB).toFixed(0)} MiB read ${proc.reason}`, ok: proc.code === 0 && proc.received >= 1024 * MB && proc.peakRss < LIMIT_BYTES });
} finally {
  rmSync(dir, { recursive: true, force: true });
}

{
  // mep serve over 40 different modules, one session each, none left open: RSS stays flat.
  // Judged as retained.test.ts does: live wasm memories exactly, the heap after GC, RSS with an
  // allowance for glibc's arenas (the smaller growth of two runs when the first is over it).
  const runs = [await retainedAcrossModules(40)];
  if (runs[0]!.growth >= 64 * MB) runs.push(await retainedAcrossModules(40));
  const { growth, before, after, heapGrowth, memoriesBefore, memoriesAfter } = runs.reduce((a, b) => (b.growth < a.growth ? b : a));
  const memoriesOk = memoriesBefore === undefined || memoriesAfter! <= memoriesBefore + 2;
  rows.push({
    name: 'mep serve, 40 sessions of different modules in sequence',
    peakRss: after,
    detail: `RSS ${(before / MB).toFixed(0)} MB after 2 sessions, grew ${(growth / MB).toFixed(0)} MB over 38 more (limit 64 MB, ${runs.length} run(s)); heap after GC +${(heapGrowth / MB).toFixed(1)} MB (limit 8); live wasm memories ${memoriesBefore ?? '?'} → ${memoriesAfter ?? '?'}`,
    ok: growth < 64 * MB && heapGrowth < 8 * MB && memoriesOk,
  });
}

{
  const bomb = await runHttpBodyBomb({ clients: 6 });
  rows.push({ name: 'mep serve --http, 6 concurrent 64 MiB bodies of empty objects', peakRss: bomb.peakRss, detail: describeHttpBodyBomb(bomb), ok: bomb.alive && !bomb.statuses.includes(408) });
}

{
  const sse = await runSseReaders({ clients: 24, seed: 0 });
  rows.push({ name: 'mep serve --http, 24 SSE clients of 32 MiB, half stalled, half reading in drips', peakRss: sse.peakRss, detail: describeSseReaders(sse), ok: sseReadersOk(sse) });
}

for (const row of rows) console.log(`${row.ok ? 'pass' : 'FAIL'}  ${row.name}: peak RSS ${(row.peakRss / MB).toFixed(0)} MB (limit ${LIMIT_BYTES / MB} MB) — ${row.detail}`);
const failed = rows.filter((row) => !row.ok).length;
console.log(`${rows.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
