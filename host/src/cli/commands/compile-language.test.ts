// `mep compile <dir>` picks the frontend by its claims (issue 36): with no --lang, the only
// frontend installed and its only language; with several, the error says to pass --lang.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withProject, writePackage } from '../../registry/test-support.ts';
import type { TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const Lang = suite('cli :: mep compile <dir> picks the language by claims');

const frontendOf = (id: string, ext: string) => ({ frontend: { languages: [{ id, fileExtensions: [ext] }], irVersions: ['3'], compile: true, incremental: false } });

async function install(t: TempProject, id: string, capabilities: Record<string, unknown>): Promise<void> {
  const io = captureIo(t.project);
  assert.is(await main(['install', await writePackage(join(t.root, 'src', id), { id, capabilities })], io), 0, io.stderr.join('\n'));
}

async function dslProject(t: TempProject): Promise<string> {
  const dir = join(t.project, 'model');
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'morphir.json'), JSON.stringify({ name: 'Acme.Model', sourceDirectory: 'src', exposedModules: ['Main'] }));
  await writeFile(join(dir, 'src', 'Main.dsl'), 'module Main exposing (x)\nx = 1\n');
  return dir;
}

Lang('uses the only frontend installed, with its only language; two frontends ask for --lang', () =>
  withProject(async (t) => {
    await install(t, 'acme.dsl', frontendOf('dsl', '.dsl'));
    await dslProject(t);
    const io = captureIo(t.project);
    const code = await main(['compile', 'model', '--json'], io);
    const result = JSON.parse(io.stdout.join('\n'));
    assert.is(result.languageId, 'dsl', io.stdout.join('\n') + io.stderr.join('\n'));
    assert.is(code, 0, io.stdout.join('\n'));

    await install(t, 'acme.elm', frontendOf('elm', '.elm'));
    const two = captureIo(t.project);
    assert.not.equal(await main(['compile', 'model'], two), 0);
    assert.match(two.stderr.join('\n'), /--lang/);
    const chosen = captureIo(t.project);
    assert.is(await main(['compile', 'model', '--lang', 'dsl', '--json'], chosen), 0, chosen.stdout.join('\n') + chosen.stderr.join('\n'));
  }),
);

Lang('refuses a sourceDirectory outside the project naming --source-root, and compiles it with --source-root (monorepo ../shared/src)', () =>
  withProject(async (t) => {
    await install(t, 'acme.dsl', frontendOf('dsl', '.dsl'));
    const dir = join(t.project, 'apps', 'model');
    await mkdir(dir, { recursive: true });
    await mkdir(join(t.project, 'shared', 'src'), { recursive: true });
    await writeFile(join(dir, 'morphir.json'), JSON.stringify({ name: 'Acme.Model', sourceDirectory: '../../shared/src', exposedModules: ['Main'] }));
    await writeFile(join(t.project, 'shared', 'src', 'Main.dsl'), 'module Main exposing (x)\nx = 1\n');
    const refused = captureIo(t.project);
    assert.is(await main(['compile', 'apps/model', '--json'], refused), 2, refused.stdout.join('\n'));
    const error = JSON.parse(refused.stdout.join('\n')).error;
    assert.is(error.code, 'ERR_USAGE');
    assert.match(error.message, /outside the project[\s\S]*--source-root/);
    const allowed = captureIo(t.project);
    assert.is(await main(['compile', 'apps/model', '--source-root', 'shared', '--json'], allowed), 0, allowed.stdout.join('\n') + allowed.stderr.join('\n'));
    assert.is(JSON.parse(allowed.stdout.join('\n')).success, true);
  }),
);

Lang.run();
