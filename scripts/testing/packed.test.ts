import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sh } from './packed.ts';

const Sh = suite('packed :: sh');

/** Whether `pid` still runs: a zombie (ended, not yet reaped by whoever adopted it) does not. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (not Linux): the signal test is all there is
  }
};

Sh('a step that runs over its time ends with everything it started: no orphan is left', async () => {
  const cwd = await mkdtemp(join(tmpdir(), 'mep-sh-'));
  try {
    // The shell starts a child of its own and waits for it: killing only the shell would leave the child.
    const r = await sh('sleep 5 & echo $!; wait', cwd, {}, { timeoutMs: 300 });
    const pid = Number(r.stdout.trim());
    assert.ok(pid > 0, `the step printed its child's pid: ${JSON.stringify(r.stdout)}`);
    assert.is.not(r.code, 0, 'a step that timed out did not succeed');
    assert.match(r.stderr, /timed out after 300 ms/);
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((done) => setTimeout(done, 20));
    assert.not.ok(alive(pid), `the shell's child ${pid} outlived the step`);
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
});

Sh('a step that ends in time keeps its exit code and output', async () => {
  const r = await sh('echo out; echo err >&2; exit 3', tmpdir());
  assert.equal(r, { code: 3, stdout: 'out\n', stderr: 'err\n' });
});

Sh('what a finished step left running in the background ends with it', async () => {
  const r = await sh('sleep 5 >/dev/null 2>&1 & echo $!', tmpdir());
  const pid = Number(r.stdout.trim());
  assert.is(r.code, 0);
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((done) => setTimeout(done, 20));
  assert.not.ok(alive(pid), `the step's background child ${pid} outlived it`);
});

Sh.run();
