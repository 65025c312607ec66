import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineExtension } from '../../../guest-pdk/src/index.ts';
import { createInProcessTransport } from '../testing/in-process-transport.ts';
import type { NormalizedCompileParams } from '../../../guest-pdk/src/index.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createSession } from '../session/session.ts';
import { commonFolder, compileProject, compileRequestForFiles, readMorphirProject } from './index.ts';

/** A frontend that records each request and fails when a document says `fail`. */
function recorder() {
  const seen: NormalizedCompileParams[] = [];
  const extension = defineExtension({
    info: { id: 'test.recorder', name: 'recorder', version: '1.0.0' },
    frontend: {
      languages: [{ id: 'elm', fileExtensions: ['.elm'] }],
      irVersions: ['3'],
      multiDocument: true,
      compile(params) {
        seen.push(params);
        const failing = params.sources.documents.find((d) => d.text.includes('fail'));
        if (failing) return { irVersion: '3', ir: null, diagnostics: [{ severity: 'error', message: 'failed', location: { uri: failing.uri, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 4 } } } }] };
        return { irVersion: '3', ir: { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }], documents: params.sources.documents.length }, modules: ['A'] };
      },
    },
  });
  return { seen, session: createSession({ transport: createInProcessTransport(extension) }) };
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-project-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function project(dir: string, manifest: unknown, files: Record<string, string>): Promise<void> {
  await writeFile(join(dir, 'morphir.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

async function usageError(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, LocalErrorCode.Usage);
    return error.data as Record<string, unknown>;
  }
  assert.unreachable('expected a usage error');
  return {};
}

const Read = suite('readMorphirProject');

Read('should send every source file below sourceDirectory, by path, with the root and the package', () =>
  withDir(async (dir) => {
    await project(dir, { name: 'Acme.Shop', sourceDirectory: 'src', exposedModules: ['Billing'], extra: true }, { 'src/Acme/Shop/Billing.elm': 'b', 'src/Acme/Shop/A.elm': 'a', 'src/notes.txt': 'x', 'other/Out.elm': 'o' });
    const p = await readMorphirProject(dir);
    const src = pathToFileURL(join(dir, 'src')).href;
    assert.is(p.params.sources!.root, `${src}/`);
    assert.equal(p.params.sources!.documents.map((d) => [d.uri.slice(src.length), d.text, d.languageId, d.version]), [['/Acme/Shop/A.elm', 'a', 'elm', 1], ['/Acme/Shop/Billing.elm', 'b', 'elm', 1]]);
    assert.equal(p.params.package, { name: 'Acme.Shop', exposedModules: ['Billing'] });
    assert.is(p.params.dependencies, undefined);
    assert.is(p.defaultOutput, join(dir, 'morphir-ir.json'));
    assert.is((p.manifest as Record<string, unknown>).extra, true);
  }),
);

Read('should inline localDependencies as IR distributions named by their package', () =>
  withDir(async (dir) => {
    const dep = { formatVersion: 3, distribution: ['Library', [['acme'], ['base', 'types']], [], { modules: [] }] };
    await project(dir, { name: 'Acme.Shop', sourceDirectory: 'src', localDependencies: ['deps/base.json'] }, { 'src/A.elm': 'a', 'deps/base.json': JSON.stringify(dep) });
    const p = await readMorphirProject(dir);
    assert.equal(p.params.dependencies, [{ packageName: 'acme/base-types', irVersion: '3', distribution: dep }]);
  }),
);

Read('should not follow symbolic links out of the source directory', () =>
  withDir(async (dir) => {
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, { 'src/A.elm': 'a', 'outside/B.elm': 'b' });
    await symlink(join(dir, 'outside'), join(dir, 'src', 'linked'));
    await symlink(join(dir, 'outside', 'B.elm'), join(dir, 'src', 'B.elm'));
    assert.equal((await readMorphirProject(dir)).params.sources!.documents.length, 1);
  }),
);

Read('should refuse a folder without a usable morphir.json, source directory or sources, naming the file', () =>
  withDir(async (dir) => {
    assert.is((await usageError(readMorphirProject(dir))).path, join(dir, 'morphir.json'));
    await project(dir, '{"name": ', {});
    await usageError(readMorphirProject(dir));
    await project(dir, { sourceDirectory: 'src' }, {});
    assert.ok(Array.isArray((await usageError(readMorphirProject(dir))).issues));
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, {});
    assert.is((await usageError(readMorphirProject(dir))).sourceDir, join(dir, 'src'));
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, { 'src/readme.txt': 'x' });
    await usageError(readMorphirProject(dir));
    await project(dir, { name: 'Acme', sourceDirectory: 'src', localDependencies: ['missing.json'] }, { 'src/A.elm': 'a' });
    assert.is((await usageError(readMorphirProject(dir))).path, join(dir, 'missing.json'));
  }),
);

Read('should refuse a sourceDirectory outside the project (/, ../.., a link out), sending nothing from there, and take one inside through a link', async () => {
  await withDir(async (dir) => {
    const project = join(dir, 'project');
    await mkdir(join(project, 'real'), { recursive: true });
    await writeFile(join(project, 'real', 'A.elm'), 'module A exposing (..)');
    await mkdir(join(dir, 'home'));
    await writeFile(join(dir, 'home', 'Key.elm'), 'secret');
    await symlink(join(dir, 'home'), join(project, 'linked'));
    await symlink('real', join(project, 'inside'));
    for (const sourceDirectory of ['/', '..', '../home', join(dir, 'home'), 'linked', 'real/../..']) {
      await writeFile(join(project, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory }));
      const data = await usageError(readMorphirProject(project));
      assert.is(data.reason, 'outside-project', sourceDirectory);
      assert.is(data.path, join(project, 'morphir.json'));
    }
    await writeFile(join(project, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory: 'inside' }));
    assert.equal((await readMorphirProject(project)).files, [join(project, 'inside', 'A.elm')]);
  });
});

Read('should take a sourceDirectory outside the project (a monorepo\'s ../shared/src) only under a root the user allows (sourceRoots), naming --source-root when refused', async () => {
  await withDir(async (dir) => {
    const project = join(dir, 'apps', 'orders');
    await mkdir(project, { recursive: true });
    await mkdir(join(dir, 'shared', 'src'), { recursive: true });
    await writeFile(join(dir, 'shared', 'src', 'Shared.elm'), 'module Shared exposing (..)');
    await mkdir(join(dir, 'home'));
    await writeFile(join(dir, 'home', 'Key.elm'), 'secret');
    await symlink(join(dir, 'home'), join(dir, 'shared', 'linked'));
    await writeFile(join(project, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory: '../../shared/src' }));
    // Refused by default: the error says which flag allows it.
    const refused = await readMorphirProject(project).then(() => undefined, (error: unknown) => error);
    assert.ok(isMepError(refused) && refused.code === LocalErrorCode.Usage);
    assert.match((refused as Error).message, /--source-root/);
    assert.is(((refused as { data: { reason: string } }).data).reason, 'outside-project');
    // Allowed: the shared root (or the folder itself), its sources sent.
    for (const root of [join(dir, 'shared'), join(dir, 'shared', 'src')]) {
      const read = await readMorphirProject(project, { sourceRoots: [root] });
      assert.equal(read.files, [join(dir, 'shared', 'src', 'Shared.elm')], root);
    }
    // A root that does not hold it, and a link out of the allowed root, stay refused.
    for (const [sourceDirectory, roots] of [['../../shared/src', [join(dir, 'apps')]], ['../../shared/linked', [join(dir, 'shared')]], ['../../home', [join(dir, 'shared')]]] as const) {
      await writeFile(join(project, 'morphir.json'), JSON.stringify({ name: 'acme', sourceDirectory }));
      const data = await usageError(readMorphirProject(project, { sourceRoots: roots }));
      assert.is(data.reason, 'outside-project', sourceDirectory);
    }
    // A root that is not a folder is the user's mistake, named.
    const missing = await usageError(readMorphirProject(project, { sourceRoots: [join(dir, 'nowhere')] }));
    assert.is(missing.reason, 'source-root-not-a-folder');
  });
});

const Compile = suite('compileProject');

Compile('should compile in one request and write the IR atomically to morphir-ir.json', () =>
  withDir(async (dir) => {
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, { 'src/A.elm': 'a', 'src/B.elm': 'b' });
    const { seen, session } = recorder();
    await session.start();
    try {
      const { result, output } = await compileProject(session, dir, { options: { typesOnly: true } });
      assert.ok(result.success);
      assert.is(seen.length, 1);
      assert.equal(seen[0].options, { typesOnly: true });
      assert.is(output, join(dir, 'morphir-ir.json'));
      assert.is(JSON.parse(await readFile(output!, 'utf8')).documents, 2);
      assert.equal((await readdir(dir)).filter((n) => n.endsWith('.tmp')), []);
      const other = await compileProject(session, dir, { output: 'out/ir.json' });
      assert.is(other.output, join(dir, 'out/ir.json'));
      assert.is((await compileProject(session, dir, { output: false })).output, null);
    } finally {
      await session.close();
    }
  }),
);

Compile('should hand the session back as soon as the frontend answered, before the IR is written (whenAnswered)', () =>
  withDir(async (dir) => {
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, { 'src/A.elm': 'a' });
    const { session } = recorder();
    await session.start();
    const answered: boolean[] = [];
    let closing: Promise<void> | undefined;
    const { output } = await compileProject(session, dir, {
      whenAnswered: () => {
        answered.push(existsSync(join(dir, 'morphir-ir.json')));
        closing = session.close();
      },
    });
    assert.equal(answered, [false], 'called once, before the IR was written');
    await closing;
    assert.is(session.state, 'stopped');
    assert.is(JSON.parse(await readFile(output!, 'utf8')).documents, 1, 'the IR is written all the same');
  }),
);

Compile('should write nothing when the compile fails, keeping an earlier IR', () =>
  withDir(async (dir) => {
    await project(dir, { name: 'Acme', sourceDirectory: 'src' }, { 'src/A.elm': 'fail', 'morphir-ir.json': 'earlier' });
    const { session } = recorder();
    await session.start();
    try {
      const { result, output } = await compileProject(session, dir);
      assert.not.ok(result.success);
      assert.is(output, null);
      assert.is(await readFile(join(dir, 'morphir-ir.json'), 'utf8'), 'earlier');
    } finally {
      await session.close();
    }
  }),
);

const Files = suite('compileRequestForFiles');

Files('should send the files in one request rooted at the folder they share, in local/example', () =>
  withDir(async (dir) => {
    await project(dir, {}, { 'a/Main.elm': 'm', 'a/b/Util.elm': 'u' });
    const params = await compileRequestForFiles(['a/Main.elm', 'a/b/Util.elm'], 'elm', dir);
    assert.is(params.sources!.root, `${pathToFileURL(join(dir, 'a')).href}/`);
    assert.equal(params.package, { name: 'local/example' });
    assert.equal(params.sources!.documents.map((d) => d.text), ['m', 'u']);
    assert.is(commonFolder(['/x/y/A.elm', '/x/z/B.elm']), '/x');
    assert.is(commonFolder(['/A.elm', '/b/B.elm']), '/');
    assert.is((await usageError(compileRequestForFiles(['a/Missing.elm'], 'elm', dir))).file, join(dir, 'a/Missing.elm'));
    await usageError(compileRequestForFiles(['a/Main.elm', './a/Main.elm'], 'elm', dir));
  }),
);

Read.run();
Compile.run();
Files.run();
