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
function watched(entry: string, build: (publish: Promise<void>, n: number, gate: { readonly state: string }) => Promise<WatchedBuild>) {
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
      return build(publish, gates.length, gate);
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

/** A watch of a fresh `main.ts` (content 'one'), past its first build, for `body`; stopped and removed after. */
async function withWatch(build: (entry: string) => Parameters<typeof watched>[1], body: (w: ReturnType<typeof watched>, entry: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mep-watch-gate-'));
  const entry = join(dir, 'main.ts');
  writeFileSync(entry, 'one');
  const w = watched(entry, build(entry));
  try {
    await w.until(() => w.io.stdout.length === 1);
    await w.until(() => w.io.stderr.some((l) => /watching/.test(l)));
    await body(w, entry);
  } finally {
    await w.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

Gate('should start the rebuild while the quiet time runs, and publish it after', async () => {
  const gateAtWork: string[] = [];
  await withWatch(
    (entry) => async (publish, n, gate) => {
      await new Promise((r) => setImmediate(r)); // what the gate is once the build got to work
      gateAtWork.push(gate.state);
      await publish;
      return { summary: `Built ${n}`, inputs: [entry] };
    },
    async (w, entry) => {
      await new Promise((r) => setTimeout(r, 100));
      writeFileSync(entry, 'two');
      await w.until(() => w.io.stdout.length === 2);
      assert.is(gateAtWork[1], 'pending', 'the rebuild was at work before the quiet time ended');
      assert.is(w.gates[1]!.state, 'open');
      assert.match(w.io.stdout[1]!, /Built 2/);
    },
  );
});

Gate('should drop a build superseded by a change in its quiet time, printing neither its output nor its failure', () =>
  withWatch(
    (entry) => async (publish, n) => {
      // The second build fails (a half-saved file): superseded, its failure is never shown.
      if (n === 2) {
        writeFileSync(entry, 'two'); // the rest of the save, within this build's quiet time
        await publish.catch(() => undefined);
        throw new Error('half-saved');
      }
      await publish;
      return { summary: `Built ${n}`, inputs: [entry] };
    },
    async (w, entry) => {
      writeFileSync(entry, 'tw');
      await w.until(() => w.io.stdout.length === 2);
      assert.is(w.gates[1]!.state, 'superseded');
      assert.is(w.gates.length, 3, 'one more build, for the last save');
      assert.match(w.io.stdout[1]!, /Built 3/);
      assert.not.ok(w.lines().some((l) => /half-saved|failed/.test(l)), w.lines().join('\n'));
    },
  ),
);

Gate('should print a failure once its quiet time passed', () =>
  withWatch(
    (entry) => async (publish, n) => {
      if (n === 2) throw new Error('a type error'); // fails before the gate opens
      await publish;
      return { summary: `Built ${n}`, inputs: [entry] };
    },
    async (w, entry) => {
      writeFileSync(entry, 'bad');
      await w.until(() => w.io.stderr.some((l) => /build failed/.test(l)));
      assert.is(w.gates[1]!.state, 'open', 'shown only once the files were quiet');
      assert.ok(w.io.stderr.some((l) => /a type error/.test(l)));
    },
  ),
);

Gate.run();
