import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';
import { withTempDir } from '../../../../fixtures/testing/temp-dir.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const many = join(root, 'fixtures/extensions/many-artifacts.mjs');
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

type Reply = { code: number; json: { success?: boolean; written?: string[]; error?: { code: unknown; message: string; data?: Record<string, unknown> } } };

/** `mep generate` with many-artifacts into `dir/out`, which holds one file of the user's. */
async function generate(dir: string, extra: string[]): Promise<Reply> {
  const io = captureIo(dir);
  const code = await main(['generate', '--extension', many, '--target', 'echo', '--input', ir, '--output', 'out', '--json', ...extra], io);
  return { code, json: JSON.parse(io.stdout.join('\n')) };
}

/** The output as the user left it, then checks it is exactly that and no staging is left. */
async function userOutput(dir: string): Promise<() => Promise<void>> {
  await mkdir(join(dir, 'out'));
  await writeFile(join(dir, 'out/mine.txt'), 'mine');
  return async () => {
    assert.equal(await readdir(join(dir, 'out')), ['mine.txt'], 'the output is left as it was');
    assert.is(await readFile(join(dir, 'out/mine.txt'), 'utf8'), 'mine');
    assert.equal(await readdir(dir), ['out'], 'no staging or journal is left beside it');
  };
}

const Output = suite('cli :: mep generate, the output bound (--max-output, --max-output-files)');

Output('should refuse streamed artifacts past --max-output with ERR_LIMIT and write nothing :: hostile', () =>
  withTempDir('mep-out-limit-', async (dir) => {
    const unchanged = await userOutput(dir);
    // 200 artifacts of 1 KiB streamed: 200 KiB, past a bound of 64 KiB.
    const { code, json } = await generate(dir, ['--max-output', '64KiB', '--option', 'stream=200', '--option', 'size=1024', '--option', 'count=0']);
    assert.is.not(code, 0);
    assert.is(json.error?.code, LocalErrorCode.Limit);
    assert.is(json.error?.data?.limit, 'maxOutputBytes');
    assert.match(json.error?.message ?? '', /--max-output /);
    await unchanged();
  }),
);

Output('should stop an extension that streams without end at --max-output, well before its deadline :: hostile', () =>
  withTempDir('mep-out-limit-', async (dir) => {
    const unchanged = await userOutput(dir);
    // Without being stopped at the bound, this call would run to its deadline of 10 minutes.
    const marker = join(dir, '..', `${basename(dir)}-cancelled`);
    try {
      const { code, json } = await generate(dir, ['--max-output', '64KiB', '--call-timeout', '600s', '--option', 'forever=true', '--option', 'size=1024', '--option', `marker=${marker}`]);
      assert.is.not(code, 0);
      assert.is(json.error?.code, LocalErrorCode.Limit, json.error?.message);
      assert.is(json.error?.data?.limit, 'maxOutputBytes');
      assert.is(await readFile(marker, 'utf8'), 'cancelled', 'the extension was told to stop ($/cancelRequest)');
      await unchanged();
    } finally {
      await rm(marker, { force: true });
    }
  }),
);

Output('should refuse returned artifacts that take the total past --max-output :: hostile', () =>
  withTempDir('mep-out-limit-', async (dir) => {
    const unchanged = await userOutput(dir);
    // 60 KiB streamed is under the bound; the 1,000 returned artifacts (about 8 KB) take it past.
    const { code, json } = await generate(dir, ['--max-output', '64KiB', '--option', 'stream=60', '--option', 'size=1024', '--option', 'count=1000']);
    assert.is.not(code, 0);
    assert.is(json.error?.code, LocalErrorCode.Limit);
    assert.is(json.error?.data?.limit, 'maxOutputBytes');
    await unchanged();
  }),
);

Output('should refuse more artifact files than --max-output-files, streamed and returned together :: hostile', () =>
  withTempDir('mep-out-limit-', async (dir) => {
    const unchanged = await userOutput(dir);
    for (const [stream, count] of [[150, 0], [60, 60]] as const) {
      const { code, json } = await generate(dir, ['--max-output-files', '100', '--option', `stream=${stream}`, '--option', `count=${count}`]);
      assert.is.not(code, 0, `${stream} streamed, ${count} returned`);
      assert.is(json.error?.code, LocalErrorCode.Limit);
      assert.is(json.error?.data?.limit, 'maxOutputFiles');
      assert.match(json.error?.message ?? '', /--max-output-files /);
      await unchanged();
    }
  }),
);

Output('should write everything when the output is within both bounds', () =>
  withTempDir('mep-out-limit-', async (dir) => {
    await userOutput(dir);
    // Exactly at the bounds: 64 files, 64 streamed of 1 KiB = 64 KiB... plus none returned.
    const { code, json } = await generate(dir, ['--max-output', '64KiB', '--max-output-files', '64', '--option', 'stream=64', '--option', 'size=1024', '--option', 'count=0']);
    assert.is(code, 0, JSON.stringify(json.error));
    assert.is(json.written?.length, 64);
    assert.ok((await readdir(join(dir, 'out'))).includes('mine.txt'));
  }),
);

Output('should refuse a malformed or out-of-range --max-output-files with exit 2', async () => {
  for (const value of ['0', 'many', '1.5']) {
    const io = captureIo(process.cwd());
    const code = await main(['generate', '--extension', many, '--target', 'echo', '--input', ir, '--output', 'out', '--max-output-files', value], io);
    assert.is(code, 2, value);
    assert.match(io.stderr.join('\n'), /--max-output-files/, value);
  }
});

Output.run();
