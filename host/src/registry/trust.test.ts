import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import { approvedSecrets, secretApprovals } from './approvals.ts';
import { parseExtensionId } from './extension-id.ts';
import { registryPaths } from './paths.ts';
import { createRedactor } from './redact.ts';
import { createSecretResolver } from './secrets.ts';
import { withProject } from './test-support.ts';
import { listTrusted, trustFileOf, trustProjectConfig, untrustProjectConfig } from './trust.ts';

const Trust = suite('registry :: trusting a project configuration');
const id = parseExtensionId('acme.crm');

Trust('should ignore the project approvals until trusted, count them once trusted, and not after an edit or untrust', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await mkdir(paths.project.root, { recursive: true });
    await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.crm': ['env("A")'] } }));
    await writeFile(paths.user.config, JSON.stringify({ secrets: { 'acme.crm': ['env("B")'] } }));
    assert.equal(await approvedSecrets(paths, id), ['env("B")'], 'the user scope keeps working');
    assert.equal((await secretApprovals(paths, id)).untrusted, { config: paths.project.config, references: ['env("A")'], reason: 'untrusted' });

    const trusted = await trustProjectConfig(paths);
    assert.is(trusted.path, paths.project.config);
    assert.match(trusted.sha256, /^[0-9a-f]{64}$/);
    assert.equal((await approvedSecrets(paths, id)).sort(), ['env("A")', 'env("B")']);
    assert.equal((await secretApprovals(paths, id)).projectOnly, ['env("A")']);

    await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.crm': ['env("A")', 'env("C")'] } }));
    assert.equal(await approvedSecrets(paths, id), ['env("B")']);
    assert.equal((await secretApprovals(paths, id)).untrusted?.reason, 'changed');
    assert.equal((await listTrusted(paths)).map((e) => e.state), ['changed']);

    await trustProjectConfig(paths);
    assert.equal((await listTrusted(paths)).length, 1, 'one entry per file, replaced');
    assert.equal((await untrustProjectConfig(paths)).removed, [paths.project.config]);
    assert.equal(await approvedSecrets(paths, id), ['env("B")']);
    assert.equal((await untrustProjectConfig(paths)).removed, []);

    // By folder or by file, from anywhere (the project may be gone); --all forgets every one.
    const elsewhere = registryPaths({ cwd: t.root });
    await trustProjectConfig(paths);
    assert.equal((await untrustProjectConfig(elsewhere, { path: t.project })).removed, [paths.project.config]);
    await trustProjectConfig(paths);
    assert.equal((await untrustProjectConfig(elsewhere, { path: paths.project.config })).removed, [paths.project.config]);
    await trustProjectConfig(paths);
    assert.equal((await untrustProjectConfig(elsewhere, { all: true })).removed, [paths.project.config]);
    assert.equal(await listTrusted(paths), []);
  }),
);

Trust('should refuse to trust a missing or malformed project config, and list a deleted one as missing', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    assert.is((await trustProjectConfig(paths).catch((e) => e)).code, LocalErrorCode.Usage);
    await mkdir(paths.project.root, { recursive: true });
    await writeFile(paths.project.config, JSON.stringify({ secrets: { '../x': ['env("A")'] } }));
    assert.is((await trustProjectConfig(paths).catch((e) => e)).code, LocalErrorCode.Usage);
    await writeFile(paths.project.config, '{}');
    await trustProjectConfig(paths);
    await rm(paths.project.config);
    assert.equal((await listTrusted(paths)).map((e) => e.state), ['missing']);
  }),
);

Trust('should refuse a trusted.json with a hostile key before using any of it', () =>
  withProject(async (t) => {
    const paths = registryPaths({ cwd: t.project });
    await mkdir(paths.project.root, { recursive: true });
    await writeFile(paths.project.config, JSON.stringify({ secrets: { 'acme.crm': ['env("A")'] } }));
    const hostile = `{"version":1,"trusted":[],"__proto__":{"trusted":[{"path":${JSON.stringify(paths.project.config)},"sha256":"${'0'.repeat(64)}"}]}}`;
    await writeFile(trustFileOf(paths), hostile);
    const error = await secretApprovals(paths, id).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Usage);
    assert.is(error.data.reason, 'hostile-key');
    assert.is(await readFile(trustFileOf(paths), 'utf8'), hostile);
  }),
);

Trust('should resolve a file() the trusted project approves only inside the project, links included', () =>
  withProject(async (t) => {
    await writeFile(join(t.root, 'outside.txt'), 'outside-value-1234\n');
    await writeFile(join(t.project, 'inside.txt'), 'inside-value-5678\n');
    await symlink(join(t.root, 'outside.txt'), join(t.project, 'link.txt'));
    const refs = ['file("inside.txt")', 'file("../outside.txt")', 'file("link.txt")', `file(${JSON.stringify(join(t.root, 'outside.txt'))})`];
    const resolve = (userApproved: string[]) =>
      createSecretResolver({ extension: 'acme.crm', requested: refs, approved: refs, projectOnly: refs.filter((r) => !userApproved.includes(r)), baseDir: t.project, redactor: createRedactor() });
    const projectOnly = resolve([]);
    assert.is(await projectOnly({ reference: refs[0] }), 'inside-value-5678');
    for (const ref of refs.slice(1)) {
      const error = await projectOnly({ reference: ref }).catch((e) => e);
      assert.is(error.code, ErrorCode.PermissionDenied, ref);
      assert.match(error.message, /outside the project/);
      assert.not.match(JSON.stringify(error), /outside-value/);
    }
    const user = resolve(refs);
    for (const ref of refs.slice(1)) assert.is(await user({ reference: ref }), 'outside-value-1234', ref);
  }),
);

Trust.run();
