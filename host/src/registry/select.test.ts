import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { installExtension } from './install.ts';
import { registryPaths } from './paths.ts';
import { selectProvider } from './select.ts';
import { backend, tempProject, writePackage } from './test-support.ts';

const Select = suite('registry :: selectProvider');
const need = { kind: 'backend', target: 'avro', irVersion: '3' } as const;

Select('should pick by claimed target and IR version, project scope before user scope, never by id', async () => {
  const t = await tempProject();
  try {
    const paths = registryPaths({ cwd: t.project });
    const install = async (id: string, caps: Record<string, unknown>, scope: 'project' | 'user' = 'project') =>
      installExtension({ source: await writePackage(join(t.root, id), { id, capabilities: caps }), paths, scope, probe: true });
    await install('avro', backend('protobuf'));
    await install('user.avro', backend('avro'), 'user');
    assert.is((await selectProvider(paths, need)).installed.id, 'user.avro');
    await install('project.avro', backend('avro'));
    const chosen = await selectProvider(paths, need);
    assert.is(chosen.installed.id, 'project.avro');
    assert.is(chosen.installed.artifact, join(t.project, '.mep/extensions/project.avro/bin/ext.mjs'), 'the project install');
    assert.ok(chosen.spec.path !== chosen.installed.artifact && chosen.spec.path.endsWith('/package/bin/ext.mjs'), 'runs a private copy of it');
    assert.equal(chosen.spec.env, {});

    await install('elm', { frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersions: ['3'], compile: true, incremental: false } });
    const frontend = await selectProvider(paths, { kind: 'frontend', fileExtension: '.elm' });
    assert.equal([frontend.installed.id, frontend.language], ['elm', 'elm']);
  } finally {
    await t.cleanup();
  }
});

Select('should call two candidates in one scope ambiguous, listing both', async () => {
  const t = await tempProject();
  try {
    const paths = registryPaths({ cwd: t.project });
    for (const id of ['one', 'two']) await installExtension({ source: await writePackage(join(t.root, id), { id, capabilities: backend('avro') }), paths });
    const error = await selectProvider(paths, need).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.is(error.data.reason, 'ambiguous-provider');
    assert.equal(error.data.candidates.map((c: { id: string }) => c.id), ['one', 'two']);
  } finally {
    await t.cleanup();
  }
});

Select('should say where it looked and what almost fit when nothing provides the need', async () => {
  const t = await tempProject();
  try {
    const paths = registryPaths({ cwd: t.project });
    await installExtension({ source: await writePackage(join(t.root, 'v4'), { id: 'v4', capabilities: { backend: { targets: ['avro'], irVersions: ['4'], generate: true } } }), paths });
    const error = await selectProvider(paths, need).catch((e) => e);
    assert.is(error.data.reason, 'no-provider');
    assert.equal(error.data.searched, [paths.project.extensions, paths.user.extensions]);
    assert.is(error.data.nearMisses.length, 1);
    assert.match(error.message, /mep install/);
  } finally {
    await t.cleanup();
  }
});

Select.run();
