import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { chmod, lchown, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { forgetCreatedParents, locateOutput } from './output-location.ts';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-location-'));
  try {
    await fn(dir);
  } finally {
    await chmod(dir, 0o755);
    await rm(dir, { recursive: true, force: true });
  }
}

async function refusal(outDir: string, cwd = tmpdir()): Promise<{ code: unknown; problem: string }> {
  try {
    await locateOutput(outDir, { cwd });
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    return { code: error.code, problem: (error.data as { problem: string }).problem };
  }
  throw new assert.Assertion({ message: `${outDir} was accepted`, operator: 'refusal', expects: 'a refusal', actual: 'accepted' });
}

const Locate = suite('locateOutput');

Locate('should refuse an output that cannot be replaced by a rename, before anything runs :: hostile', () =>
  withDir(async (dir) => {
    await writeFile(join(dir, 'file'), 'x');
    await symlink('loop-b', join(dir, 'loop-a'));
    await symlink('loop-a', join(dir, 'loop-b'));
    await symlink('nowhere', join(dir, 'dangling'));
    await symlink('file', join(dir, 'to-file'));
    await mkdir(join(dir, 'work/sub'), { recursive: true });
    const cases: [string, RegExp, string?][] = [
      [join(dir, 'file'), /is a file/],
      [join(dir, 'loop-a'), /loop/],
      [join(dir, 'loop-a/out'), /cannot be read|not a directory|loop/],
      [join(dir, 'to-file'), /not a directory/],
      [join(dir, 'file/out'), /not a directory|cannot be read/],
      [join(dir, 'work'), /working directory/, join(dir, 'work/sub')],
      [join(dir, 'work/sub'), /working directory/, join(dir, 'work/sub')],
      ['/', /root/, '/tmp'],
    ];
    for (const [path, problem, cwd] of cases) {
      const { code, problem: said } = await refusal(path, cwd);
      assert.is(code, LocalErrorCode.Usage, path);
      assert.match(said, problem, path);
    }
    if (existsSync('/dev/shm')) assert.match((await refusal('/dev/shm')).problem, /mount point|not writable/);
    assert.equal((await readdir(dir)).sort(), ['dangling', 'file', 'loop-a', 'loop-b', 'to-file', 'work'], 'nothing created');
    // A link to a directory that does not exist names where the output goes.
    assert.is((await locateOutput(join(dir, 'dangling'))).path, join(dir, 'nowhere'));
  }),
);

Locate('should refuse an output whose parent is not writable :: permissions', () =>
  withDir(async (dir) => {
    if (process.getuid?.() === 0) return; // root writes everywhere
    await mkdir(join(dir, 'locked'));
    await chmod(join(dir, 'locked'), 0o555);
    assert.match((await refusal(join(dir, 'locked/out'))).problem, /not writable/);
  }),
);

Locate('should resolve links, create missing parents and remove them again when asked', () =>
  withDir(async (dir) => {
    await mkdir(join(dir, 'real'));
    await symlink('real', join(dir, 'alias'));
    const linked = await locateOutput(join(dir, 'alias'));
    assert.equal([linked.path, linked.parent, linked.name, linked.created], [join(dir, 'real'), dir, 'real', []]);
    const fresh = await locateOutput(join(dir, 'a/b/out'));
    assert.equal([fresh.path, fresh.created], [join(dir, 'a/b/out'), [join(dir, 'a'), join(dir, 'a/b')]]);
    await forgetCreatedParents(fresh);
    assert.not.ok(existsSync(join(dir, 'a')), 'no empty directory left');
    assert.is(await locateOutput(join(dir, 'c/d/out'), { createParents: false }), undefined);
    assert.not.ok(existsSync(join(dir, 'c')));
  }),
);

Locate('should not follow a link another user planted in a sticky, world-writable folder (/tmp), as the kernel\'s protected_symlinks would not :: hostile', async () => {
  // Making a link of another user takes root (lchown); elsewhere the rule is not exercised.
  if (process.getuid?.() !== 0) return;
  await withDir(async (dir) => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const victim = join(dir, 'victim');
    await mkdir(victim);
    await writeFile(join(victim, 'a.txt'), 'precious');
    for (const name of ['gen', 'gone']) {
      await symlink(name === 'gen' ? victim : join(dir, 'victim-new'), join(shared, name));
      await lchown(join(shared, name), 65534, 65534);
    }
    for (const out of [join(shared, 'gen'), join(shared, 'gen/sub'), join(shared, 'gone')]) {
      const refused = await refusal(out);
      assert.is(refused.code, LocalErrorCode.Usage);
      assert.match(refused.problem, /another user/, out);
    }
    // mep generate writes nothing through it: before, the artifacts were published into victim/.
    const io = captureIo(dir);
    const root = new URL('../../../', import.meta.url).pathname;
    const code = await main(['generate', '--extension', join(root, 'fixtures/extensions/many-artifacts.mjs'), '--target', 'echo', '--input', join(root, 'fixtures/mep/ir/business-terms.json'), '--output', join(shared, 'gen'), '--option', 'count=2', '--option', 'size=10', '--json'], io);
    assert.is(code, 2, io.stdout.join('\n'));
    assert.is(JSON.parse(io.stdout.join('\n')).error.data.reason, 'foreign-link');
    assert.equal(await readdir(victim), ['a.txt']);
    assert.is(await readFile(join(victim, 'a.txt'), 'utf8'), 'precious');
    assert.not.ok(existsSync(join(dir, 'victim-new')));
    // A link of the user's own (or of the folder's owner) there is the user's: followed.
    await symlink(victim, join(shared, 'mine'));
    assert.is((await locateOutput(join(shared, 'mine'), { cwd: tmpdir() })).path, victim);
  });
});

Locate.run();
