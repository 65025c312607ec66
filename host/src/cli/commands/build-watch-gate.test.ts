// watchBuild (issue 36): a rebuild starts at the first change and works while the files must stay
// quiet; what it made is only published (written, printed) once they were quiet for the debounce.
// A change in that time supersedes it: nothing of it is printed, and the next build reads the edit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../io.ts';
import { watchBuild, type WatchedBuild } from './build-watch.ts';

const Gate = suite('cli :: mep build --watch (a build starts at the change, published after the quiet time)');

/** A watch of `entry` whose builds are recorded; `settle` resolves when `n` builds were published or failed. */
function watched(entry: string, build: (publish: Promise<void>, n: number) => Promise<WatchedBuild>) {
  const io = captureIo(join(entry, '..'));
  const controller = new AbortController();
  const gates: { state: 'pending' | 'open' | 'superseded' }[] = [];
  const done = watchBuild(io, {
    entry,
    signal: controller.signal,
    build: (publish) => {
      const gate = { state: 'pending' as 'pending' | 'open' | 'superseded' };
      gates.push(gate);
      publish.then(
        () => (gate.state = 'open'),
        () => (gate.state = 'superseded'),
      );
      return build(publish, gates.length);
    },
  });
  const lines = (): string[] => [...io.stdout, ...io.stderr];
  const until = async (test: () => boolean): Promise<void> => {
    const limit = Date.now() + 60_000;
    while (!test()) {
      if (Date.now() > limit) throw new Error(`timed out: ${lines().join('\n')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return { io, gates, lines, until, stop: async () => (controller.abort(), await done) };
}

Gate('should start the rebuild while the quiet time runs, and publish it after', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-gate-'));
  const entry = join(dir, 'main.ts');
  writeFileSync(entry, 'one');
  const gateAtWork: string[] = [];
  const w = watched(entry, async (publish, n) => {
    await new Promise((r) => setImmediate(r)); // what the gate is once the build got to work
    gateAtWork.push(w.gates[n - 1]!.state);
    await publish;
    return { summary: `Built ${n}`, inputs: [entry] };
  });
  try {
    await w.until(() => w.io.stdout.length === 1);
    await w.until(() => w.io.stderr.some((l) => /watching/.test(l)));
    await new Promise((r) => setTimeout(r, 100));
    writeFileSync(entry, 'two');
    await w.until(() => w.io.stdout.length === 2);
    assert.is(gateAtWork[1], 'pending', 'the rebuild was at work before the quiet time ended');
    assert.is(w.gates[1]!.state, 'open');
    assert.match(w.io.stdout[1]!, /Built 2/);
  } finally {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

Gate('should drop a build superseded by a change in its quiet time, printing neither its output nor its failure', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-gate-'));
  const entry = join(dir, 'main.ts');
  writeFileSync(entry, 'one');
  const w = watched(entry, async (publish, n) => {
    // The second build fails (a half-saved file): superseded, its failure is never shown.
    if (n === 2) {
      writeFileSync(entry, 'two'); // the rest of the save, within this build's quiet time
      await publish.catch(() => undefined);
      throw new Error('half-saved');
    }
    await publish;
    return { summary: `Built ${n}`, inputs: [entry] };
  });
  try {
    await w.until(() => w.io.stdout.length === 1);
    await w.until(() => w.io.stderr.some((l) => /watching/.test(l)));
    writeFileSync(entry, 'tw');
    await w.until(() => w.io.stdout.length === 2);
    assert.is(w.gates[1]!.state, 'superseded');
    assert.is(w.gates.length, 3, 'one more build, for the last save');
    assert.match(w.io.stdout[1]!, /Built 3/);
    assert.not.ok(w.lines().some((l) => /half-saved|failed/.test(l)), w.lines().join('\n'));
  } finally {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

Gate('should print a failure once its quiet time passed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-gate-'));
  const entry = join(dir, 'main.ts');
  writeFileSync(entry, 'one');
  const w = watched(entry, async (publish, n) => {
    if (n === 2) throw new Error('a type error'); // fails before the gate opens
    await publish;
    return { summary: `Built ${n}`, inputs: [entry] };
  });
  try {
    await w.until(() => w.io.stdout.length === 1);
    await w.until(() => w.io.stderr.some((l) => /watching/.test(l)));
    writeFileSync(entry, 'bad');
    await w.until(() => w.io.stderr.some((l) => /build failed/.test(l)));
    assert.is(w.gates[1]!.state, 'open', 'shown only once the files were quiet');
    assert.ok(w.io.stderr.some((l) => /a type error/.test(l)));
  } finally {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

Gate.run();
