import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs, { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { openStagedOutput } from './staged-output.ts';
import type { PublishStep, StagedOutput } from './staged-output.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { withPatchedBuiltin } from '../../../fixtures/testing/patched-builtin.ts';

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-staged-', fn);

const codeOf = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => assert.unreachable('expected a failure'),
    (e: unknown) => (isMepError(e) ? e.code : e),
  );
const file = (path: string, content = path) => ({ path, content, binary: false });

/** An output `out` in `dir` holding old.txt: "old". */
async function withOld(dir: string): Promise<string> {
  const out = join(dir, 'out');
  await mkdir(out);
  await writeFile(join(out, 'old.txt'), 'old');
  return out;
}

const Staged = suite('openStagedOutput');

Staged('should take files one at a time and publish them with every step in order', () =>
  withDir(async (dir) => {
    const out = await withOld(dir);
    const steps: PublishStep[] = [];
    const output = await openStagedOutput(out, { onStep: (s) => steps.push(s) });
    assert.equal(await readdir(out), ['old.txt'], 'nothing visible while staging');
    assert.is(await output.add(file('a/one.txt')), 9);
    assert.is(await output.add(file('old.txt', 'new')), 3);
    const report = await output.publish();
    assert.equal(report.written, ['a/one.txt', 'old.txt']);
    assert.is(report.bytes, 12);
    assert.equal(steps, ['staged', 'carried', 'swapping', 'moved-aside', 'published', 'cleaned']);
    assert.is(await readFile(join(out, 'old.txt'), 'utf8'), 'new');
    assert.is(await codeOf(output.add(file('late.txt'))), LocalErrorCode.Usage, 'closed once published');
    assert.is(await output.abort(), 'published');
    assert.equal(await readdir(dir), ['out']);
  }),
);

Staged('should refuse a colliding path and publish the rest', () =>
  withDir(async (dir) => {
    const output = await openStagedOutput(join(dir, 'out'), { extension: 'acme.gen' });
    await output.add(file('Types/a.avsc'));
    assert.is(await codeOf(output.add(file('types/b.avsc'))), LocalErrorCode.Artifact);
    await output.publish();
    assert.equal(await readdir(join(dir, 'out/Types')), ['a.avsc']);
  }),
);

Staged('should leave the output, and no empty directory it created, when aborted :: rollback', () =>
  withDir(async (dir) => {
    const output = await openStagedOutput(join(dir, 'a/b/out'));
    await output.add(file('x/y.txt'));
    assert.is(await output.abort(), 'aborted');
    assert.equal(await readdir(dir), [], 'the parents created for the output are gone too');
    assert.is(await codeOf(output.add(file('z.txt'))), ErrorCode.RequestCancelled);
    assert.is(await codeOf(output.publish()), ErrorCode.RequestCancelled);
  }),
);

for (const [at, outcome] of [['staged', 'aborted'], ['carried', 'aborted'], ['swapping', 'published'], ['moved-aside', 'published']] as const) {
  Staged(`should end as ${outcome} when aborted at the step "${at}" :: interrupt`, () =>
    withDir(async (dir) => {
      const out = await withOld(dir);
      let aborting: Promise<string> | undefined;
      const reason = new MepError(ErrorCode.RequestCancelled, 'interrupted');
      const holder: { output?: StagedOutput } = {};
      const output = await openStagedOutput(out, { onStep: (s) => void (s === at && (aborting = holder.output?.abort(reason))) });
      holder.output = output;
      await output.add(file('old.txt', 'new'));
      const published = await output.publish().then(
        () => true,
        (e: unknown) => (assert.is(e, reason), false),
      );
      assert.is(await aborting, outcome);
      assert.is(published, outcome === 'published');
      assert.is(await readFile(join(out, 'old.txt'), 'utf8'), outcome === 'published' ? 'new' : 'old');
      assert.equal(await readdir(dir), ['out']);
    }),
  );
}

Staged('should let one publication at a time write to an output :: concurrency', () =>
  withDir(async (dir) => {
    const first = await openStagedOutput(join(dir, 'out'));
    assert.is(await codeOf(openStagedOutput(join(dir, 'out'))), LocalErrorCode.Usage);
    await first.add(file('1.txt'));
    await first.publish();
    const second = await openStagedOutput(join(dir, 'out'));
    await second.add(file('2.txt'));
    await second.publish();
    assert.equal((await readdir(join(dir, 'out'))).sort(), ['1.txt', '2.txt']);
  }),
);

Staged('should refuse an output that became a file while staging, and change nothing', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out);
    await output.add(file('a.txt'));
    await writeFile(out, 'a file now');
    assert.is(await codeOf(output.publish()), LocalErrorCode.Usage);
    assert.is(await readFile(out, 'utf8'), 'a file now');
    assert.equal(await readdir(dir), ['out']);
    assert.not.ok(existsSync(join(dir, '.mep-publish-out.json')));
  }),
);

Staged('should write every file byte for byte, small ones from one shared buffer and big ones in chunks, however their adds overlap', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out);
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) & 0xff);
    // Past the first shared buffer (64 KiB) as UTF-8, past one chunk (1 Mi characters) with a
    // surrogate pair across the cut, multi-byte and astral text, base64, and an empty file.
    const files = [
      { path: 'wide.txt', content: '中é'.repeat(25_000), binary: false },
      { path: 'a/ascii.avsc', content: '{"type":"record"}\n', binary: false },
      { path: 'a/astral.txt', content: 'x😀'.repeat(1_000), binary: false },
      { path: 'a/bin.dat', content: Buffer.from(bytes).toString('base64'), binary: true },
      { path: 'a/empty.txt', content: '', binary: false },
      { path: 'big.txt', content: 'a'.repeat((1 << 20) - 1) + '😀' + 'b'.repeat(5), binary: false },
      { path: 'after.txt', content: 'ñ'.repeat(10), binary: false },
    ];
    const sizes = await Promise.all(files.map((f) => output.add(f)));
    await output.publish();
    for (const [i, f] of files.entries()) {
      const expected = f.binary ? Buffer.from(bytes) : Buffer.from(f.content, 'utf8');
      const written = await readFile(join(out, f.path));
      assert.ok(written.equals(expected), `${f.path}: ${written.length} bytes written, ${expected.length} expected`);
      assert.is(sizes[i], expected.length, `${f.path}: the size add reports`);
    }
  }),
);

Staged('should create at most one file at a time in a directory, and many directories at once', () =>
  withDir(async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out);
    // Counts the creates in flight per directory through fs.open, which the stager calls (its
    // ESM import of node:fs sees the patched function).
    const inFlight = new Map<string, number>();
    let most = 0;
    let together = 0;
    let mostTogether = 0;
    const counted = (realOpen: typeof fs.open) =>
      ((path: string, flags: string, mode: number, callback: (e: Error | null, fd: number) => void) => {
        const folder = dirname(path);
        inFlight.set(folder, (inFlight.get(folder) ?? 0) + 1);
        most = Math.max(most, inFlight.get(folder) as number);
        mostTogether = Math.max(mostTogether, ++together);
        realOpen(path, flags, mode, (error, fd) => {
          inFlight.set(folder, (inFlight.get(folder) as number) - 1);
          together--;
          callback(error, fd);
        });
      }) as typeof fs.open;
    await withPatchedBuiltin(fs, 'open', counted, async () => {
      const files = Array.from({ length: 120 }, (_, i) => file(`m${i % 3}/f${i}.txt`));
      await Promise.all(files.map((f) => output.add(f)));
    });
    await output.publish();
    assert.is(most, 1, 'creates in flight in one directory at once');
    assert.ok(mostTogether > 1, `creates in three directories overlap (at most ${mostTogether} at once)`);
    assert.is((await readdir(join(out, 'm1'))).length, 40);
    assert.is(await readFile(join(out, 'm2', 'f119.txt'), 'utf8'), 'm2/f119.txt');
  }),
);

Staged.run();
