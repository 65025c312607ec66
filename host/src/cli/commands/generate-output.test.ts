import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, symlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode } from '../../protocol/errors.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';
import { withTempDir } from '../../../../fixtures/testing/temp-dir.ts';
import { directoryIdentity } from '../../artifacts/journal-record.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const many = join(root, 'fixtures/extensions/many-artifacts.mjs');
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-gen-out-', fn);

/** An extension that leaves `started` in `dir` when it starts, then behaves as many-artifacts. */
async function markingExtension(dir: string): Promise<string> {
  const path = join(dir, 'marking.mjs');
  await writeFile(path, `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(join(dir, 'started'))}, 'yes');\nawait import(${JSON.stringify(many)});\n`);
  return path;
}

async function generate(dir: string, output: string, extra: string[] = []): Promise<{ code: number; json: { success: boolean; written?: string[]; error?: { code: unknown; data?: Record<string, unknown> } } }> {
  const io = captureIo(dir);
  const code = await main(['generate', '--extension', await markingExtension(dir), '--target', 'echo', '--input', ir, '--output', output, '--json', ...extra], io);
  return { code, json: JSON.parse(io.stdout.join('\n')) };
}

const Output = suite('cli :: mep generate --output');

Output('should refuse an unusable output with exit 2 before the extension runs :: hostile', () =>
  withDir(async (dir) => {
    await writeFile(join(dir, 'a-file'), 'x');
    await symlink('loop', join(dir, 'loop'));
    await mkdir(join(dir, 'here'));
    for (const [output, cwd] of [['a-file', dir], ['loop', dir], ['a-file/sub', dir], ['.', join(dir, 'here')]] as const) {
      const io = captureIo(cwd);
      const code = await main(['generate', '--extension', await markingExtension(dir), '--target', 'echo', '--input', ir, '--output', output, '--json'], io);
      assert.is(code, 2, output);
      assert.is(JSON.parse(io.stdout.join('\n')).error.code, LocalErrorCode.Usage, output);
      assert.not.ok(existsSync(join(dir, 'started')), `the extension did not run for ${output}`);
    }
  }),
);

Output('should add the artifacts to the output and keep its other files', () =>
  withDir(async (dir) => {
    await mkdir(join(dir, 'out/gen/0'), { recursive: true });
    await writeFile(join(dir, 'out/gen/0/0.txt'), 'old 0');
    await writeFile(join(dir, 'out/README.md'), 'mine');
    const { code, json } = await generate(dir, 'out', ['--option', 'count=3']);
    assert.is(code, 0);
    assert.equal(json.written, ['gen/0/0.txt', 'gen/1/1.txt', 'gen/2/2.txt']);
    assert.is(await readFile(join(dir, 'out/gen/0/0.txt'), 'utf8'), 'new 0');
    assert.is(await readFile(join(dir, 'out/README.md'), 'utf8'), 'mine');
    assert.equal((await readdir(dir)).sort(), ['marking.mjs', 'out', 'started']);
  }),
);

Output('should finish a publication that an earlier, killed run left half swapped, before writing', () =>
  withDir(async (dir) => {
    // The state of a run killed between its two renames: the old tree aside, the new one not in.
    const staging = join(dir, '.mep-staging-out-0badc0de');
    await mkdir(join(staging, 'new'), { recursive: true });
    await writeFile(join(staging, 'new/from-the-killed-run.txt'), 'finished');
    await mkdir(join(dir, 'out'));
    await rename(join(dir, 'out'), join(staging, 'old'));
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('exit', () => resolve(child.pid as number));
    });
    await writeFile(join(dir, '.mep-publish-out.json'), JSON.stringify({ format: 1, pid: dead, host: hostname(), started: new Date().toISOString(), output: join(dir, 'out'), staging: '.mep-staging-out-0badc0de', phase: 'swapping', identity: { staging: await directoryIdentity(staging), fresh: await directoryIdentity(join(staging, 'new')) } }));
    const { code } = await generate(dir, 'out', ['--option', 'count=1']);
    assert.is(code, 0);
    assert.equal((await readdir(join(dir, 'out'))).sort(), ['from-the-killed-run.txt', 'gen']);
    assert.equal((await readdir(dir)).sort(), ['marking.mjs', 'out', 'started']);
  }),
);

Output('should stop on SIGINT while writing, leaving the old output or the whole new one and nothing beside it :: interrupt', () =>
  withDir(async (dir) => {
    await mkdir(join(dir, 'out'));
    await writeFile(join(dir, 'out/keep.txt'), 'old');
    const child = spawn(
      process.execPath,
      [join(root, 'bin/mep.mjs'), 'generate', '--extension', many, '--target', 'echo', '--input', ir, '--output', 'out', '--json', '--option', 'count=20000'],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Interrupt once the new tree has files in it: the write has begun.
    let interrupted = false;
    while (!interrupted && child.exitCode === null) {
      const staging = (await readdir(dir)).find((name) => name.startsWith('.mep-staging-out-'));
      const written = staging === undefined ? [] : await readdir(join(dir, staging, 'new')).catch(() => []);
      if (written.length > 0) interrupted = child.kill('SIGINT');
      else await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const code = await closed;
    const report = JSON.parse(stdout);
    const entries = (await readdir(join(dir, 'out'))).sort();
    if (code === 0) {
      // The signal came after the swap had begun: the whole new tree.
      assert.equal(entries, ['gen', 'keep.txt']);
      assert.is(report.written.length, 20_000);
    } else {
      assert.is(code, 3);
      assert.is(report.error.code, ErrorCode.RequestCancelled);
      assert.equal(entries, ['keep.txt'], 'the output as it was');
    }
    assert.equal(await readdir(dir), ['out'], 'no staging tree and no journal left');
  }),
);

Output.run();
