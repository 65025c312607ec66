import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LocalErrorCode } from '../protocol/errors.ts';
import { approvedSecrets } from './approvals.ts';
import { parseExtensionId } from './extension-id.ts';
import { registryPaths } from './paths.ts';
import { withProject } from './test-support.ts';
import { trustProjectConfig } from './trust.ts';

const Config = suite('registry :: approvedSecrets');

Config('should merge both files (the project\'s once trusted) and read only own members for an id', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await mkdir(paths.project.root, { recursive: true });
    await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.crm': ['env("A")'] } }));
    await writeFile(paths.user.config, JSON.stringify({ secrets: { 'acme.crm': ['env("B")', 'env("A")'], 'acme.other': ['env("B")'] } }));
    await trustProjectConfig(paths);
    assert.equal((await approvedSecrets(paths, parseExtensionId('acme.crm'))).sort(), ['env("A")', 'env("B")']);
    for (const id of ['toString', 'valueOf', 'hasOwnProperty']) assert.equal(await approvedSecrets(paths, parseExtensionId(id)), [], id);
  }),
);

Config('should refuse a configuration keyed by something that is not a plain id, naming it', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await mkdir(paths.project.root, { recursive: true });
    await writeFile(paths.project.config, JSON.stringify({ secrets: { '../../etc': ['env("A")'] } }));
    const error = await approvedSecrets(paths, parseExtensionId('acme.crm')).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Usage);
    assert.equal(error.data.issues[0].path, ['secrets', '../../etc']);
  }),
);

Config.run();
