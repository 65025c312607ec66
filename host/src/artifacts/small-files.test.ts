import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, open as openCallback, openSync } from 'node:fs';
import { readFile, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { openStagedOutput } from './staged-output.ts';
import { oversubscribed, smallFileWriter } from './small-files.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-small-', fn);
const file = (path: string, content = `${path}\n`.repeat(40)) => ({ path, content, binary: false });

/** Turns the event loop until `done()` or `turns` turns have passed; resolves the turns taken. */
async function turnsUntil(done: () => boolean, turns = 2_000): Promise<number> {
  let turn = 0;
  while (!done() && turn < turns) {
    await new Promise((resolve) => setImmediate(resolve));
    turn++;
  }
  return turn;
}

/**
 * Occupies every thread of libuv's pool with an `open` of a FIFO that no one writes (it blocks
 * until a writer comes); resolves a function that lets them go and waits until they have.
 */
async function blockThePool(dir: string): Promise<() => Promise<void>> {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const opened = Array.from({ length: threads }, () => new Promise<number>((resolve, reject) => openCallback(fifo, 'r', (error, fd) => (error === null ? resolve(fd) : reject(error)))));
  return async () => {
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    for (const fd of await Promise.all(opened)) closeSync(fd);
    closeSync(writer);
  };
}

const Small = suite('small files');

Small('should create small files on the main thread, not waiting for a busy thread pool', () =>
  withDir(async (dir) => {
    const output = await openStagedOutput(join(dir, 'out'), { smallFiles: { synchronous: true } });
    await output.add(file('a/first.txt'));
    const release = await blockThePool(dir);
    let written = 0;
    const adds = Array.from({ length: 50 }, (_, i) => output.add(file(`a/${i}.txt`)).then(() => written++));
    try {
      await turnsUntil(() => written === 50);
      assert.is(written, 50, 'every file written while the pool was busy');
    } finally {
      await release();
    }
    await Promise.all(adds);
    await output.publish();
    assert.is((await readdir(join(dir, 'out/a'))).length, 51);
    assert.is(await readFile(join(dir, 'out/a/7.txt'), 'utf8'), file('a/7.txt').content);
  }),
);

Small('should let the event loop turn between slices of synchronous creates, a timer firing mid-output', () =>
  withDir(async (dir) => {
    const output = await openStagedOutput(join(dir, 'out'), { smallFiles: { synchronous: true, sliceMs: 0 } });
    let written = 0;
    let writtenWhenTimerFired = -1;
    setTimeout(() => (writtenWhenTimerFired = written), 0);
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    await Promise.all(Array.from({ length: 200 }, (_, i) => output.add(file(`m${i % 4}/${i}.avsc`)).then(() => written++)));
    counting = false;
    assert.ok(writtenWhenTimerFired >= 0 && writtenWhenTimerFired < 200, `the timer fired after ${writtenWhenTimerFired} of 200 files`);
    assert.ok(turns >= 150, `the loop turned ${turns} times while 200 files were written one a slice`);
    await output.publish();
    assert.is(await readFile(join(dir, 'out/m3/199.avsc'), 'utf8'), file('m3/199.avsc').content);
  }),
);

Small('should serve a timer during a 2,000-file output with the default slice', () =>
  withDir(async (dir) => {
    const output = await openStagedOutput(join(dir, 'out'), { smallFiles: { synchronous: true } });
    let written = 0;
    let writtenWhenTimerFired = -1;
    setTimeout(() => (writtenWhenTimerFired = written), 0);
    await Promise.all(Array.from({ length: 2_000 }, (_, i) => output.add(file(`m${i % 20}/${i}.avsc`, 'x'.repeat(64))).then(() => written++)));
    assert.ok(writtenWhenTimerFired >= 0 && writtenWhenTimerFired < 2_000, `the timer fired after ${writtenWhenTimerFired} of 2,000 files`);
    const report = await output.publish();
    assert.is(report.written.length, 2_000);
  }),
);

Small("should send an output's other files to the thread pool once one synchronous write is slow, and only that output's", () =>
  withDir(async (dir) => {
    const slow = await smallFileWriter(dir, { synchronous: true, slowMs: -1 });
    const other = await smallFileWriter(dir, { synchronous: true });
    assert.not.ok(slow.onPool);
    const release = await blockThePool(dir);
    let pooled = 0;
    let pending: Promise<unknown>[] = [];
    try {
      assert.is(await slow.write(join(dir, 'first.txt'), file('first.txt', 'one')), 3, 'the first one, synchronously');
      assert.ok(slow.onPool, 'switched to the pool after a slow write');
      pending = ['b', 'c'].map((name) => slow.write(join(dir, name), file(name, name)).then(() => pooled++));
      assert.is(await other.write(join(dir, 'other.txt'), file('other.txt', 'two')), 3, 'another output stays synchronous');
      await turnsUntil(() => pooled > 0, 200);
      assert.is(pooled, 0, 'waiting for the busy pool');
    } finally {
      await release();
    }
    await Promise.all(pending);
    assert.is(await readFile(join(dir, 'c'), 'utf8'), 'c');
    assert.ok((await smallFileWriter(dir, { synchronous: false })).onPool);
  }),
);

Small('should refuse an existing path and a link with EEXIST, not following the link', () =>
  withDir(async (dir) => {
    const writer = await smallFileWriter(dir, { synchronous: true });
    await writer.write(join(dir, 'taken'), file('taken', 'a'));
    await symlink(join(dir, 'target'), join(dir, 'link'));
    for (const name of ['taken', 'link']) {
      const code = await writer.write(join(dir, name), file(name, 'b')).then(
        () => 'written',
        (e: NodeJS.ErrnoException) => e.code,
      );
      assert.is(code, 'EEXIST', name);
    }
    assert.not.ok(existsSync(join(dir, 'target')), 'nothing written through the link');
    assert.is(await readFile(join(dir, 'taken'), 'utf8'), 'a');
  }),
);

Small('should create on the pool on a machine with more runnable threads than cores, on the main thread below', () => {
  assert.is(HOST_FILE_LIMITS.createPoolLoadPerCore, 1);
  assert.ok(oversubscribed(2.1, 2));
  assert.ok(oversubscribed(9, 8));
  assert.not.ok(oversubscribed(2, 2));
  assert.not.ok(oversubscribed(1.5, 2), 'avro9 measured the main thread faster at load 1.0-1.7 on 2 cores');
  assert.not.ok(oversubscribed(0, 1), 'no load average (Windows): on the main thread');
});

Small.run();
