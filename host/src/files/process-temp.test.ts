// The sweep of temporary folders dead `mep` processes left (process-temp.ts), against what another
// user of a shared /tmp can plant there: any number of names of the same kind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeProcessTemp, processTempRoot, SWEEP_NAMES } from './process-temp.ts';

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
    // (In the user's own folder, where the sweep looks: nothing another user plants is there.)
    process.env.TMPDIR = root;
    const own = processTempRoot();
    for (let i = 0; i < SWEEP_NAMES * 2; i++) mkdirSync(join(own, `mep-sweeptest-${DEAD}-${i}`));
    writeFileSync(join(own, `mep-sweeptest-${DEAD}-file`), '');
    const left = () => readdirSync(own).filter((n) => n.startsWith(`mep-sweeptest-${DEAD}-`)).length;
    temps.push(makeProcessTemp('mep-sweeptest-'));
    assert.ok(left() > SWEEP_NAMES && left() < SWEEP_NAMES * 2 + 1, `one sweep looked at ${SWEEP_NAMES} names at most: ${SWEEP_NAMES * 2 + 1 - left()} removed`);
    // The next sweeps go on where the removed ones were: every stale folder goes, never the file.
    for (let i = 0; i < 3 && left() > 1; i++) temps.push(makeProcessTemp('mep-sweeptest-'));
    assert.equal(readdirSync(own).filter((n) => n.startsWith(`mep-sweeptest-${DEAD}-`)), [`mep-sweeptest-${DEAD}-file`]);
  } finally {
    for (const temp of temps) await temp.remove();
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  }
});

Sweep("should remove a stale folder of the user's whatever names another user planted in /tmp (planted names kept it on disk for good)", async () => {
  const root = mkdtempSync(join(tmpdir(), 'mep-sweep-'));
  const previous = process.env.TMPDIR;
  let temp: ReturnType<typeof makeProcessTemp> | undefined;
  try {
    // A mep of this user killed mid-run (SIGKILL: no exit hook) leaves its folder where mep makes them.
    const script = `import { makeProcessTemp } from ${JSON.stringify(new URL('./process-temp.ts', import.meta.url).href)};\nconst t = makeProcessTemp('mep-sweeptest-');\nprocess.stdout.write(t.dir);\nprocess.kill(process.pid, 'SIGKILL');`;
    let stale = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: root }, encoding: 'utf8' });
    } catch (error) {
      stale = String((error as { stdout?: string }).stdout ?? '');
    }
    assert.ok(stale !== '' && existsSync(stale), `the killed run left its folder: ${stale}`);
    // Another user plants names of the kind, as many as they like: 40 sweeps' worth.
    for (let i = 0; i < SWEEP_NAMES * 40; i++) writeFileSync(join(root, `mep-sweeptest-${DEAD}-${i}`), '');
    process.env.TMPDIR = root;
    temp = makeProcessTemp('mep-sweeptest-');
    assert.not.ok(existsSync(stale), `the stale folder stays: ${stale}`);
  } finally {
    await temp?.remove();
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  }
});

Sweep("should not use a folder named for the user that another user made first, or one open to others", () => {
  const root = mkdtempSync(join(tmpdir(), 'mep-sweep-'));
  const previous = process.env.TMPDIR;
  try {
    process.env.TMPDIR = root;
    const squatted = join(root, `mep-${process.getuid?.()}`);
    mkdirSync(squatted, { mode: 0o777 });
    chmodSync(squatted, 0o777); // past the umask: what another user's would be to this one
    assert.is(processTempRoot(), root);
    if (process.getuid?.() === 0) {
      chmodSync(squatted, 0o700);
      chownSync(squatted, 65534, 65534); // nobody's
      assert.is(processTempRoot(), root);
    }
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(root, { recursive: true, force: true });
  }
});

Sweep.run();
