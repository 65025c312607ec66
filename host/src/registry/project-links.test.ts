import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { removeExtension } from './remove.ts';
import { backend, withProject, writePackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

// A cloned project can ship `.mep` (or anything in it) as a symbolic link to anywhere: mep never
// writes a project's registry through one, it refuses naming the link and what to do.
const Links = suite('registry :: a link planted in a project cannot redirect its writes');

async function refusal(t: TempProject, id = 'acme.links'): Promise<MepError> {
  const pkg = await writePackage(join(t.root, `pkg-${id}`), { id, capabilities: backend('x') });
  return installExtension({ source: pkg, paths: registryPaths({ cwd: t.project }), probe: false }).then(
    () => {
      throw new Error('installed through a link');
    },
    (error: unknown) => error as MepError,
  );
}

function assertRefused(error: MepError, link: string): void {
  assert.is(error.code, LocalErrorCode.Registry, String(error));
  assert.equal([(error.data as { path?: string }).path, (error.data as { reason?: string }).reason], [link, 'symlink']);
  assert.match(error.message, link);
  assert.match(error.message, /Replace the link/);
}

for (const [what, plant] of [
  ['.mep', async (t: TempProject, outside: string) => symlink(outside, join(t.project, '.mep'))],
  ['.mep/extensions', async (t: TempProject, outside: string) => (await mkdir(join(t.project, '.mep')), symlink(outside, join(t.project, '.mep/extensions')))],
  ['.mep/extensions.lock', async (t: TempProject, outside: string) => (await mkdir(join(t.project, '.mep')), symlink(join(outside, 'victim'), join(t.project, '.mep/extensions.lock')))],
  ['.mep/extensions.lock.lock', async (t: TempProject, outside: string) => (await mkdir(join(t.project, '.mep')), symlink(join(outside, 'victim'), join(t.project, '.mep/extensions.lock.lock')))],
  ['.mep/extensions/acme.links', async (t: TempProject, outside: string) => (await mkdir(join(t.project, '.mep/extensions'), { recursive: true }), symlink(outside, join(t.project, '.mep/extensions/acme.links')))],
] as const) {
  Links(`should refuse to install through ${what} planted as a link to elsewhere, writing nothing there :: hostile`, () =>
    withProject(async (t) => {
      const outside = join(t.root, 'outside');
      await mkdir(outside);
      await writeFile(join(outside, 'victim'), '1\n');
      await plant(t, outside);
      assertRefused(await refusal(t), join(t.project, what));
      assert.equal(await readdir(outside), ['victim'], 'nothing written outside the project');
    }),
  );
}

Links('should refuse to remove an extension through a linked .mep :: hostile', () =>
  withProject(async (t) => {
    const outside = join(t.root, 'outside');
    await mkdir(join(outside, 'extensions/acme.links'), { recursive: true });
    await writeFile(join(outside, 'extensions.lock'), '{"version":1,"extensions":{}}\n');
    await symlink(outside, join(t.project, '.mep'));
    const error = await removeExtension(registryPaths({ cwd: t.project }), 'acme.links').then(
      () => {
        throw new Error('removed through a link');
      },
      (e: unknown) => e as MepError,
    );
    assertRefused(error, join(t.project, '.mep'));
    assert.equal((await readdir(outside)).sort(), ['extensions', 'extensions.lock']);
    assert.equal(await readdir(join(outside, 'extensions')), ['acme.links']);
  }),
);

Links.run();
