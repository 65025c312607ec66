// A process extension's memory (issue 36): read from /proc of the extension itself, not of the
// launcher that contains it; and a native executable stopped at its address-space cap is told a
// limit sized from what was measured, not twice the cap.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatLimit, suggestedLimit } from '../../protocol/limits.ts';
import type { MepError } from '../../protocol/errors.ts';
import { addressSpaceTool } from '../../registry/launch-limits.ts';
import { processMemoryReport } from '../../session/call-stages.ts';
import { memoryToSuggest } from '../memory-advice.ts';
import { createProcessTransport } from '../process.ts';
import { containment } from './containment.ts';
import { parseProcStatus, readProcessMemory } from './proc-memory.ts';

const MiB = 1024 * 1024;
/**
 * These children ignore their stdin closing, so a close waits the whole grace before it signals
 * them (2 s by default, four times a run): they are ended after a short one instead.
 */
const STDIN_IGNORED_GRACE_MS = 100;
const Memory = suite('process extension :: its memory, measured');

Memory('should read the peaks from a status text, and nothing from one without them', () => {
  const status = 'Name:\text\nVmPeak:\t  204800 kB\nVmSize:\t  102400 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40000 kB\n';
  assert.equal(parseProcStatus(status), { residentPeakBytes: 50 * MiB, addressSpaceBytes: 100 * MiB, addressSpacePeakBytes: 200 * MiB });
  assert.is(parseProcStatus('Name:\text\nState:\tZ (zombie)\n'), undefined, 'an exited process has no figures');
  assert.is(parseProcStatus('VmPeak: lots\nVmSize: 1 kB\nVmHWM: 1 kB\n'), undefined);
});

Memory('should measure the extension itself, not its launcher', async () => {
  if (process.platform !== 'linux') return;
  const script = `globalThis.kept = Buffer.alloc(${96 * MiB}, 1); process.stderr.write('ready\\n'); setInterval(() => {}, 1000);`;
  const transport = createProcessTransport({ name: 'resident', command: process.execPath, args: ['-e', script], cwd: process.cwd(), killGraceMs: STDIN_IGNORED_GRACE_MS });
  try {
    let memory = transport.memory();
    const until = Date.now() + 30_000;
    while ((memory?.residentPeakBytes ?? 0) < 96 * MiB && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      memory = transport.memory();
    }
    assert.ok(memory && memory.residentPeakBytes >= 96 * MiB, `the 96 MiB it holds: ${JSON.stringify(memory)}`);
    assert.ok(memory!.addressSpacePeakBytes >= memory!.addressSpaceBytes);
    if (containment().kind === 'pid-namespace') {
      const launcher = readProcessMemory(transport.pid!);
      assert.ok(launcher && launcher.residentPeakBytes < 32 * MiB, `the pid spawned is the launcher's, a small shell: ${JSON.stringify(launcher)}`);
    }
  } finally {
    await transport.close();
  }
  assert.ok(transport.memory() === undefined, 'no read after the end (its pid may be another process’s)');
});

Memory('should size the advice of a native executable stopped at its address-space cap from what it measured', async () => {
  const prlimit = addressSpaceTool();
  if (prlimit === null) return;
  const cap = 48 * MiB;
  // bash growing an array by about 1 MiB every 20 ms until an allocation fails at the cap.
  const grow = `a=(); while :; do a+=("$(printf '%*s' 1000000 '')"); sleep 0.02; done`;
  const transport = createProcessTransport({ name: 'grower', command: prlimit, args: [`--as=${cap}`, '--', '/bin/bash', '--norc', '-c', grow], cwd: process.cwd(), memoryLimitBytes: cap });
  const error = await new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
  assert.ok(error, 'it ended with an error');
  const data = error!.data as { memoryLimitBytes?: number; addressSpacePeakBytes?: number; addressSpaceStartBytes?: number };
  assert.is(data.memoryLimitBytes, cap);
  assert.ok(data.addressSpacePeakBytes !== undefined && data.addressSpaceStartBytes !== undefined, `the measured figures are in the error's data: ${JSON.stringify(data)}`);
  assert.ok(data.addressSpacePeakBytes! > 24 * MiB && data.addressSpacePeakBytes! <= cap, `it grew toward the cap: ${data.addressSpacePeakBytes}`);
  const suggested = suggestedLimit('maxMemoryBytes', cap, memoryToSuggest({ limitBytes: cap, startBytes: data.addressSpaceStartBytes!, peakBytes: data.addressSpacePeakBytes! }))!;
  assert.match(error!.message, `--max-memory ${formatLimit('maxMemoryBytes', suggested)} on`);
  assert.not.match(error!.message, /--max-memory 96MiB/, 'not twice the cap');
  assert.match(error!.message, /address space/);
  assert.match(error!.message, /--verbose/, 'how to measure the whole peak in one run');
});

Memory('should print the cap the transport was given, whatever launched it (--verbose\'s "process memory" line)', async () => {
  if (process.platform !== 'linux') return;
  const line = async (caps: { memoryLimitBytes?: number; heapLimitBytes?: number }): Promise<string | undefined> => {
    const transport = createProcessTransport({ name: 'capped', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000);'], cwd: process.cwd(), killGraceMs: STDIN_IGNORED_GRACE_MS, ...caps });
    try {
      const until = Date.now() + 30_000;
      while (transport.memory() === undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      return processMemoryReport(transport);
    } finally {
      await transport.close();
    }
  };
  assert.match((await line({ heapLimitBytes: 123 * MiB })) ?? '', /^process memory: peak [\d.]+ MiB resident, [\d.]+ MiB address space \(its V8 heap is capped at 123 MiB;/);
  assert.match((await line({ memoryLimitBytes: 4567 * MiB })) ?? '', /^process memory: peak .* \(\d+ % of its 4567 MiB address-space cap;/);
  assert.match((await line({})) ?? '', /^process memory: peak [\d.]+ MiB resident, [\d.]+ MiB address space$/);
});

Memory.run();
