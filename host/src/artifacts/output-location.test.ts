import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { forgetCreatedParents, locateOutput } from './output-location.ts';

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

Locate.run();
