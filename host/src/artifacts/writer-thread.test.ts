import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { openStagedOutput } from './staged-output.ts';
import type { StagedOutput } from './staged-output.ts';
import { leaseWriterThread, writerThreadForTests } from './writer-thread.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-writer-thread-', fn);
const text = (path: string, content: string) => ({ path, content, binary: false });

/** Waits (up to 20 s) for the writer thread to have booted; fails when none starts. */
async function threadReady(): Promise<NonNullable<ReturnType<typeof writerThreadForTests>>> {
  for (let waited = 0; waited < 20_000; waited += 5) {
    const thread = writerThreadForTests();
    if (thread?.ready) return thread;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no writer thread became ready');
}

/** Adds `count` small files under `dir/` of `output` until the writer thread runs: the pool takes the first ones. */
async function warm(output: StagedOutput, dir: string, count = 20) {
  for (let i = 0; i < count; i++) await output.add(text(`${dir}/warm${i}.txt`, `warm ${i}`));
  return threadReady();
}

const Thread = suite('the artifact writer thread');

Thread('should write many small files byte for byte on one thread and end it once published', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out);
    const thread = await warm(output, 'w');
    // Multi-byte text, a surrogate pair, an empty file, base64, and one past the smallest buffer.
    const files = Array.from({ length: 300 }, (_, i) => text(`m${i % 7}/f${i}.txt`, `é ${i} 😀 `.repeat(i % 50)));
    files.push({ path: 'bin/blob', content: Buffer.from([0, 1, 2, 255]).toString('base64'), binary: true });
    files.push(text('big/one.txt', 'ab€'.repeat(40_000)));
    const sizes = await Promise.all(files.map((file) => output.add(file)));
    assert.ok(thread.answeredFiles >= files.length, `written on the thread: ${thread.answeredFiles}`);
    const report = await output.publish();
    assert.is(report.bytes, sizes.reduce((a, b) => a + b, 0) + Array.from({ length: 20 }, (_, i) => `warm ${i}`.length).reduce((a, b) => a + b));
    for (const file of files) {
      const bytes = await readFile(join(out, file.path));
      assert.equal(bytes, Buffer.from(file.content, file.binary ? 'base64' : 'utf8'), file.path);
    }
    await thread.exited;
    assert.is(writerThreadForTests(), undefined, 'no thread left');
  }),
);

Thread('should fail with ERR_ARTIFACT, publish nothing and leave no thread when the thread fails mid-run :: hostile', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'old.txt'), 'old');
    const output = await openStagedOutput(out);
    const thread = await warm(output, 'a');
    // The thread gets a message it cannot take before the next files: it throws and ends with them held.
    thread.worker.postMessage('not a batch');
    const adds = Array.from({ length: 30 }, (_, i) => output.add(text(`a/late${i}.txt`, 'x'.repeat(1000))));
    const outcomes = await Promise.allSettled(adds);
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    assert.ok(refused.length > 0, 'the files the thread held are refused');
    for (const error of refused) {
      assert.ok(isMepError(error), String(error));
      assert.is(error.code, LocalErrorCode.Artifact);
      assert.match(error.message, /thread writing the artifact files ended/);
    }
    const published = await output.publish().then(
      () => 'published',
      (error: unknown) => (isMepError(error) ? error.code : error),
    );
    assert.is(published, LocalErrorCode.Artifact, 'nothing is published');
    assert.is(await output.abort(), 'aborted');
    assert.equal(await readdir(dir), ['out'], 'no staging tree or journal left');
    assert.equal(await readdir(out), ['old.txt'], 'the output is as it was');
    await thread.exited;
    assert.is(writerThreadForTests(), undefined, 'no thread left');
  }),
);

Thread('should end the thread when the output is aborted, and keep it while another output uses it', () =>
  withDir(async (dir) => {
    const first = await openStagedOutput(join(dir, 'one'));
    const second = await openStagedOutput(join(dir, 'two'));
    const thread = await warm(first, 'x');
    await warm(second, 'y');
    assert.is(writerThreadForTests(), thread, 'one thread for both outputs');
    assert.is(await first.abort(), 'aborted');
    assert.is(writerThreadForTests(), thread, 'still running for the second output');
    await second.add(text('y/after.txt', 'after'));
    await second.publish();
    await thread.exited;
    assert.is(writerThreadForTests(), undefined, 'no thread left');
    assert.equal(await readdir(dir), ['two']);
    assert.is(await readFile(join(dir, 'two/y/after.txt'), 'utf8'), 'after');
  }),
);

Thread('should refuse an existing path and a symbolic link, never following it, with the error code kept :: hostile', () =>
  withDir(async (dir) => {
    const lease = leaseWriterThread();
    const thread = await threadReady();
    try {
      await writeFile(join(dir, 'taken.txt'), 'mine');
      await writeFile(join(dir, 'target.txt'), 'target');
      await symlink(join(dir, 'target.txt'), join(dir, 'link.txt'));
      for (const name of ['taken.txt', 'link.txt']) {
        const bytes = lease.buffer(5);
        bytes.write('hello');
        const error = await lease.write(join(dir, name), bytes.subarray(0, 5)).then(
          () => undefined,
          (e: NodeJS.ErrnoException) => e,
        );
        assert.is(error?.code, 'EEXIST', name);
        assert.is(error?.syscall, 'open', name);
      }
      assert.is(await readFile(join(dir, 'taken.txt'), 'utf8'), 'mine');
      assert.is(await readFile(join(dir, 'target.txt'), 'utf8'), 'target', 'the link was not followed');
    } finally {
      lease.release();
    }
    await thread.exited;
    assert.is(writerThreadForTests(), undefined);
  }),
);

Thread.run();
