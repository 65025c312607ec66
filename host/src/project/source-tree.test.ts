import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { LocalErrorCode } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { makeFifo, unlessHung } from '../files/testing/special-files.ts';
import { readMorphirProject } from './index.ts';

const Sources = suite('project :: what is sent to a frontend');

const withDir = (fn: (dir: string) => Promise<void>): Promise<void> => withTempDir('mep-sources-', fn);

async function files(dir: string, tree: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/** A project whose source folder holds Elm modules and the secrets a folder tends to hold. */
async function tempting(dir: string): Promise<void> {
  await files(dir, {
    'morphir.json': JSON.stringify({ name: 'Acme', sourceDirectory: 'src' }),
    'src/Acme/A.elm': 'module Acme.A exposing (..)',
    'src/Acme/B.xyz': 'b',
    'src/.env': 'TOKEN=1',
    'src/.git/config': '[core]',
    'src/.hidden/C.elm': 'module C exposing (..)',
    'src/.D.elm': 'module D exposing (..)',
    'src/server.pem': '-----BEGIN PRIVATE KEY-----',
    'src/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----',
    'outside/Secret.elm': 'module Secret exposing (..)',
  });
  await symlink(join(dir, 'outside'), join(dir, 'src/Linked'));
  await symlink(join(dir, 'outside/Secret.elm'), join(dir, 'src/Acme/Linked.elm'));
  await symlink('.', join(dir, 'src/loop'));
}

const sent = async (dir: string, languageId: string, fileExtensions: string[]): Promise<string[]> =>
  (await readMorphirProject(dir, { languageId, fileExtensions })).files.map((f) => relative(join(dir, 'src'), f));

Sources('should send only the Elm modules under sourceDirectory, whatever a frontend claims :: hostile', () =>
  withDir(async (dir) => {
    await tempting(dir);
    assert.equal(await sent(dir, 'elm', ['.env', '.pem', '', '.elm']), ['Acme/A.elm']);
    assert.equal(await sent(dir, 'elm', ['.pem']), ['Acme/A.elm'], 'elm sources are .elm files');
  }),
);

Sources("should send another language's claimed extensions but never an empty one, a dotfile or a key file :: hostile", () =>
  withDir(async (dir) => {
    await tempting(dir);
    assert.equal(await sent(dir, 'xyz', ['.xyz', '.pem', '', '.env', '.git']), ['Acme/B.xyz']);
    const error = await readMorphirProject(dir, { languageId: 'xyz', fileExtensions: ['', '.pem', '.key'] }).catch((e) => e);
    assert.equal([error.code, error.data.reason], [LocalErrorCode.Usage, 'no-source-extension']);
  }),
);

Sources('should bound the count and the total size of the sources, naming the option', () =>
  withDir(async (dir) => {
    await files(dir, { 'morphir.json': JSON.stringify({ name: 'Acme', sourceDirectory: 'src' }), 'src/A.elm': 'a'.repeat(600), 'src/B.elm': 'b'.repeat(600), 'src/C.elm': 'c' });
    const many = await readMorphirProject(dir, { maxSourceFiles: 2 }).catch((e) => e);
    assert.equal([many.code, many.data.limit], [LocalErrorCode.Limit, 'maxSourceFiles']);
    const big = await readMorphirProject(dir, { maxSourceBytes: 1000 }).catch((e) => e);
    assert.equal([big.code, big.data.limit], [LocalErrorCode.Limit, 'maxMessageBytes']);
    assert.is((await readMorphirProject(dir, { maxSourceFiles: 3, maxSourceBytes: 1201 })).files.length, 3);
  }),
);

Sources('should refuse a FIFO as a local dependency or as morphir.json without hanging :: hostile', () =>
  withDir(async (dir) => {
    await files(dir, { 'morphir.json': JSON.stringify({ name: 'Acme', sourceDirectory: 'src', localDependencies: ['dep.json'] }), 'src/A.elm': 'a' });
    makeFifo(join(dir, 'dep.json'));
    const outcome = readMorphirProject(dir).then(() => 'read', (e: { code?: unknown; data?: { reason?: unknown } }) => [e.code, e.data?.reason]);
    assert.equal(await unlessHung(outcome, [join(dir, 'dep.json')]), [LocalErrorCode.Usage, 'not-a-file']);
    await rm(join(dir, 'morphir.json'));
    makeFifo(join(dir, 'morphir.json'));
    const manifest = readMorphirProject(dir).then(() => 'read', (e: { code?: unknown; data?: { reason?: unknown } }) => [e.code, e.data?.reason]);
    assert.equal(await unlessHung(manifest, [join(dir, 'morphir.json')]), [LocalErrorCode.Usage, 'not-a-file']);
  }),
);

Sources('should refuse a morphir.json past its size bound, and one with a hostile key at the top :: hostile', () =>
  withDir(async (dir) => {
    await files(dir, { 'src/A.elm': 'a' });
    const modules = Array.from({ length: 120_000 }, (_, i) => `Acme.Module${i}`);
    await writeFile(join(dir, 'morphir.json'), JSON.stringify({ name: 'Acme', sourceDirectory: 'src', exposedModules: modules }));
    const big = await readMorphirProject(dir).catch((e) => e);
    assert.equal([big.code, big.data?.reason], [LocalErrorCode.Limit, 'too-large']);
    await writeFile(join(dir, 'morphir.json'), '{"name": "Acme", "sourceDirectory": "src", "__proto__": {"exposedModules": ["X"]}}');
    const hostile = await readMorphirProject(dir).catch((e) => e);
    assert.equal([hostile.code, hostile.data?.reason], [LocalErrorCode.Usage, 'hostile-key']);
  }),
);

Sources('should refuse a source tree deeper than it walks, or with paths past PATH_MAX, with typed errors, not a raw ENAMETOOLONG :: hostile', () =>
  withDir(async (dir) => {
    await files(dir, { 'morphir.json': JSON.stringify({ name: 'Acme', sourceDirectory: 'src' }), 'src/A.elm': 'a' });
    await mkdir(join(dir, 'src', ...Array.from({ length: HOST_FILE_LIMITS.sourceDepth + 2 }, () => 'a')), { recursive: true });
    const tooDeep = await readMorphirProject(dir).catch((e) => e);
    assert.equal([tooDeep.code, tooDeep.data?.limit, tooDeep.data?.maxSourceDepth], [LocalErrorCode.Limit, 'sourceDepth', HOST_FILE_LIMITS.sourceDepth], String(tooDeep));
    await rm(join(dir, 'src', 'a'), { recursive: true });
    // 24 folders of 200-character names, made relative to each other: past PATH_MAX (4,096) well within the depth.
    const long = 'b'.repeat(200);
    try {
      execFileSync('bash', ['-c', `cd "$1" && for i in $(seq 24); do mkdir ${long} && cd ${long}; done`, 'bash', join(dir, 'src')]);
      const tooLong = await readMorphirProject(dir).catch((e) => e);
      assert.equal([tooLong.code, tooLong.data?.reason], [LocalErrorCode.Usage, 'path-too-long'], String(tooLong));
    } finally {
      execFileSync('rm', ['-rf', join(dir, 'src', long)]);
    }
    assert.equal(await sent(dir, 'elm', []), ['A.elm']);
  }),
);

Sources.run();
