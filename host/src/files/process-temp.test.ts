// The sweep of temporary folders dead `mep` processes left (process-temp.ts), against what another
// user of a shared /tmp can plant there: any number of names of the same kind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeProcessTemp, SWEEP_NAMES } from './process-temp.ts';

const Sweep = suite('process temp: the sweep of what dead processes left');

/** A pid no process has (past Linux's largest pid_max, 2^22). */
const DEAD = 99_999_999;

Sweep('should look at a bounded number of names of its kind per sweep, whatever a shared /tmp holds, and still remove what dead processes left :: SWEEP_NAMES', async () => {
  const root = mkdtempSync(join(tmpdir(), 'mep-sweep-'));
  const previous = process.env.TMPDIR;
  const temps: ReturnType<typeof makeProcessTemp>[] = [];
  try {
    // Another user of /tmp can plant any number of names of the kind, and each was looked at by
    // every `mep install` and every first run of a process extension (200,000 planted: 4.0 s of
    // CPU, the event loop held). Here folders a killed mep of this user left stand for them.
    for (let i = 0; i < SWEEP_NAMES * 2; i++) mkdirSync(join(root, `mep-sweeptest-${DEAD}-${i}`));
    writeFileSync(join(root, `mep-sweeptest-${DEAD}-file`), '');
    process.env.TMPDIR = root;
    const left = () => readdirSync(root).filter((n) => n.startsWith(`mep-sweeptest-${DEAD}-`)).length;
    temps.push(makeProcessTemp('mep-sweeptest-'));
    assert.ok(left() > SWEEP_NAMES && left() < SWEEP_NAMES * 2 + 1, `one sweep looked at ${SWEEP_NAMES} names at most: ${SWEEP_NAMES * 2 + 1 - left()} removed`);
    // The next sweeps go on where the removed ones were: every stale folder goes, never the file.
    for (let i = 0; i < 3 && left() > 1; i++) temps.push(makeProcessTemp('mep-sweeptest-'));
    assert.equal(readdirSync(root).filter((n) => n.startsWith(`mep-sweeptest-${DEAD}-`)), [`mep-sweeptest-${DEAD}-file`]);
  } finally {
    for (const temp of temps) await temp.remove();
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  }
});

Sweep.run();
