import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MepError } from '../../host/src/protocol/errors.ts';
import { bundleGuest, disposeBundleContexts } from './bundle.ts';
import { MAX_SOURCE_FILE_BYTES, outsideFolders, readSourceText } from './source-files.ts';
import { typecheckGuest } from './typecheck.ts';
import { bundleError, inScratch as inScratchOf, refusedNaming } from './testing/bundle-error.ts';

const SourceFiles = suite('build :: source files are regular files');

async function scratch(): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'mep-source-files-'));
}

const inScratch = (body: (root: string) => Promise<void>): Promise<void> => inScratchOf('source-files', body);

SourceFiles('should refuse a module linked into /proc by its target (esbuild read the kernel file as source)', async () => {
  const dir = await scratch();
  try {
    // A .txt import is esbuild's text loader by default: the link's target would be the guest's string.
    await symlink('/proc/self/environ', join(dir, 'env.txt'));
    await writeFile(join(dir, 'main.ts'), `import env from './env.txt';\nexport function handle(): number { return env.length; }\n`);
    const error = await bundleGuest({ entry: join(dir, 'main.ts'), runtime: 'wasm', cwd: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, MepError);
    assert.is((error as MepError).code, 'ERR_BUILD');
    assert.match(JSON.stringify((error as MepError).data ?? {}) + (error as Error).message, /environ[^]*system tree/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

SourceFiles('should refuse a device, a FIFO and an oversized file in the type check, and decode as TypeScript does', async () => {
  const dir = await scratch();
  try {
    const fifo = join(dir, 'pipe.ts');
    execFileSync('mkfifo', [fifo]);
    // Read with TypeScript's own reader, a FIFO with no writer blocks the check for good.
    for (const path of ['/dev/zero', fifo]) {
      assert.throws(() => readSourceText(path), (e: unknown) => e instanceof MepError && e.code === 'ERR_BUILD' && e.message.includes(path), path);
    }
    assert.is(readSourceText(join(dir, 'absent.ts')), undefined);
    await writeFile(join(dir, 'bom.ts'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('const a = 1;')]));
    assert.is(readSourceText(join(dir, 'bom.ts')), 'const a = 1;');
    await writeFile(join(dir, 'utf16.ts'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('const é = 1;', 'utf16le')]));
    assert.is(readSourceText(join(dir, 'utf16.ts')), 'const é = 1;');
    await writeFile(join(dir, 'big.ts'), Buffer.alloc(MAX_SOURCE_FILE_BYTES + 1, 0x20));
    assert.throws(() => readSourceText(join(dir, 'big.ts')), (e: unknown) => e instanceof MepError && e.code === 'ERR_LIMIT');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

SourceFiles('should end the type check of a FIFO given as the entry with a diagnostic (it blocked the check for good)', async () => {
  const dir = await scratch();
  try {
    const entry = join(dir, 'main.ts');
    execFileSync('mkfifo', [entry]);
    const problems = await typecheckGuest(entry, { cwd: dir });
    assert.ok(
      problems.some((p) => p.message.includes(entry) && /a FIFO, not a regular file/.test(p.message)),
      JSON.stringify(problems),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** `root/project` with a guest entry of its own, `src/main.ts`, that imports nothing. */
async function plainProject(root: string): Promise<string> {
  const project = join(root, 'project');
  await mkdir(join(project, 'src'), { recursive: true });
  await writeFile(join(project, 'src', 'main.ts'), `export function handle(): number { return 1; }\n`);
  return project;
}

SourceFiles('should refuse a source linked to a FIFO or an oversized file outside the project and outside /dev (esbuild waited on it until mep was stopped)', async () => {
  const other = await scratch(); // another user's folder in /tmp
  const project = await scratch();
  try {
    const fifo = join(other, 'pipe.ts');
    execFileSync('mkfifo', [fifo]);
    await symlink(fifo, join(project, 'lib.ts'));
    await writeFile(join(project, 'main.ts'), `import { n } from './lib.ts';\nexport function handle(): number { return n; }\n`);
    refusedNaming(await bundleError(join(project, 'main.ts'), project), fifo, /FIFO/);
    const big = join(other, 'big.txt');
    await writeFile(big, '');
    await truncate(big, MAX_SOURCE_FILE_BYTES + 1); // sparse: no disk used
    await symlink(big, join(project, 'big.txt'));
    await writeFile(join(project, 'main.ts'), `import big from './big.txt';\nexport function handle(): number { return big.length; }\n`);
    refusedNaming(await bundleError(join(project, 'main.ts'), project), big, /larger|limit|bytes/i);
    // A regular file outside the project still builds, as esbuild would have loaded it.
    await writeFile(join(other, 'ok.ts'), 'export const n: number = 7;\n');
    await rm(join(project, 'lib.ts'));
    await symlink(join(other, 'ok.ts'), join(project, 'lib.ts'));
    await writeFile(join(project, 'main.ts'), `import { n } from './lib.ts';\nexport function handle(): number { return n; }\n`);
    const built = await bundleGuest({ entry: join(project, 'main.ts'), runtime: 'wasm', cwd: project });
    assert.match(built.code, /7/);
  } finally {
    await rm(other, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  }
});

SourceFiles("should refuse a package.json or tsconfig.json esbuild's resolver would read that is a FIFO or a device (above the project too)", () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    const above = join(root, 'package.json'); // another user's /tmp/package.json over a project in /tmp
    execFileSync('mkfifo', [above]);
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), above, /FIFO/);
    await rm(above);
    const linked = join(project, 'src', 'tsconfig.json');
    await symlink('/dev/zero', linked);
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), linked, /device/);
  }),
);

SourceFiles('should spell "outside these folders" as a filter esbuild takes, whatever letters the folders have', async () => {
  const odd = 'a+b (c)[d]^$|?*{1}\\-é🙂';
  const filter = outsideFolders([`/tmp/${odd}`, '/opt/pdk'])!;
  for (const inside of [`/tmp/${odd}/main.ts`, `/tmp/${odd}/src/x/y.ts`, '/opt/pdk/src/index.ts']) assert.not.ok(filter.test(inside), inside);
  for (const outside of [`/tmp/${odd}x/main.ts`, `/tmp/${odd}`, '/tmp/a', '/opt/pdkx/a.ts', '/opt', 'relative.ts', '/etc/passwd']) assert.ok(filter.test(outside), outside);
  // esbuild (RE2) takes it too: a project in such a folder builds, its modules loaded by esbuild itself.
  const root = await scratch();
  try {
    const project = join(root, odd.replace(/[*?]/g, '')); // esbuild takes * and ? in an entry for a glob
    await mkdir(project);
    await writeFile(join(project, 'lib.ts'), 'export const n: number = 41;\n');
    await writeFile(join(project, 'main.ts'), `import { n } from './lib.ts';\nexport function handle(): number { return n + 1; }\n`);
    const built = await bundleGuest({ entry: join(project, 'main.ts'), runtime: 'wasm', cwd: project });
    assert.match(built.code, /41/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

SourceFiles("should refuse a tsconfig.json whose extends names a FIFO or a device (esbuild read it as it read the tsconfig)", () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    const base = join(root, 'other', 'base.json'); // another user's folder
    await mkdir(join(root, 'other'));
    execFileSync('mkfifo', [base]);
    // Comments, as tsconfig files have them; the name without .json, as TypeScript takes it.
    await writeFile(join(project, 'tsconfig.json'), `{\n  // shared settings\n  "extends": "../other/base",\n  "compilerOptions": {}\n}\n`);
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), base, /FIFO/);
    await writeFile(join(project, 'tsconfig.json'), `{ "extends": ["./ok.json", "/dev/zero"] }`);
    await writeFile(join(project, 'ok.json'), `{}`);
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), '/dev/zero', /device/);
  }),
);

SourceFiles("should hold a build run from a folder above the project (cwd /tmp) to the project's folder, not the whole of /tmp", async () => {
  const root = await scratch(); // the shared /tmp the user runs `mep build project/main.ts` in
  try {
    const project = join(root, 'project');
    await mkdir(join(root, 'other'));
    await mkdir(project);
    await writeFile(join(project, 'package.json'), '{ "name": "p" }');
    const fifo = join(root, 'other', 'pipe.ts'); // another user's folder beside the project
    execFileSync('mkfifo', [fifo]);
    await symlink(fifo, join(project, 'lib.ts'));
    await writeFile(join(project, 'main.ts'), `import { n } from './lib.ts';\nexport function handle(): number { return n; }\n`);
    refusedNaming(await bundleError(join(project, 'main.ts'), root), fifo, /FIFO/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

SourceFiles('should build the entry a path names in a folder named like a glob (**), or refuse it naming it, never the files the glob matches :: glob', () =>
  inScratch(async (root) => {
    // esbuild takes an entry with * for a glob: root/**/main.ts matched root/other/deep/main.ts too.
    const project = join(root, '**');
    await mkdir(project);
    await mkdir(join(root, 'other', 'deep'), { recursive: true });
    await writeFile(join(project, 'main.ts'), 'export function handle(): number { return 4141; }\n');
    await writeFile(join(root, 'other', 'deep', 'main.ts'), 'export function handle(): number { return 2929; }\n');
    const built = await bundleGuest({ entry: join(project, 'main.ts'), runtime: 'wasm', cwd: project });
    assert.match(built.code, /4141/);
    assert.not.match(built.code, /2929/);
    // Run from above the folder, the * is in the path esbuild is given: refused, naming the entry.
    const error = await bundleGuest({ entry: join(project, 'main.ts'), runtime: 'wasm', cwd: root }).catch((e: unknown) => e);
    assert.instance(error, MepError);
    assert.equal([(error as MepError).code, ((error as MepError).data as { reason?: string }).reason], ['ERR_BUILD', 'glob-entry']);
    assert.ok((error as Error).message.includes(join(project, 'main.ts')), (error as Error).message);
  }),
);

SourceFiles('should refuse a tsconfig.json whose extends names a package whose file is a FIFO, a device or oversized (resolved through node_modules) :: extends-package', () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    const modules = join(project, 'node_modules');
    // "@acme/tsconfig/base.json": a file of a scoped package, here a FIFO (esbuild waited on it for good).
    await mkdir(join(modules, '@acme', 'tsconfig'), { recursive: true });
    await writeFile(join(modules, '@acme', 'tsconfig', 'package.json'), '{ "name": "@acme/tsconfig" }');
    const fifo = join(modules, '@acme', 'tsconfig', 'base.json');
    execFileSync('mkfifo', [fifo]);
    await writeFile(join(project, 'tsconfig.json'), '{ "extends": "@acme/tsconfig/base.json" }');
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), fifo, /FIFO/);
    // "shared": the file its package.json exports names, a link to /dev/zero.
    await mkdir(join(root, 'node_modules', 'shared', 'conf'), { recursive: true }); // above the project: resolved there too
    await writeFile(join(root, 'node_modules', 'shared', 'package.json'), '{ "name": "shared", "exports": { ".": { "default": "./conf/ts.json" } } }');
    const linked = join(root, 'node_modules', 'shared', 'conf', 'ts.json');
    await symlink('/dev/zero', linked);
    await writeFile(join(project, 'tsconfig.json'), '{ "extends": "shared" }');
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), linked, /device/);
    // "cfg": the package's own tsconfig.json, past the size a build reads.
    await mkdir(join(modules, 'cfg'));
    const big = join(modules, 'cfg', 'tsconfig.json');
    await writeFile(big, '');
    await truncate(big, MAX_SOURCE_FILE_BYTES + 1);
    await writeFile(join(project, 'tsconfig.json'), '{ "extends": "cfg" }');
    refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), big, /larger|limit|bytes/i);
    // A package's tsconfig that is a regular file still builds.
    await writeFile(join(modules, 'cfg', 'tsconfig.json'), '{ "compilerOptions": { "strict": true } }');
    const built = await bundleGuest({ entry: join(project, 'src', 'main.ts'), runtime: 'wasm', cwd: project });
    assert.match(built.code, /handle/);
  }),
);

SourceFiles('should refuse a resolver file of the project swapped for a FIFO or a device during a watch, at the next rebuild (a rebuild checked only the folders above) :: watch', async () => {
  const root = await scratch();
  try {
    const project = await plainProject(root);
    const entry = join(project, 'src', 'main.ts');
    await writeFile(join(project, 'src', 'tsconfig.json'), '{}');
    assert.is(await bundleError(entry, project, true), 'built');
    // A pull during the watch: src/tsconfig.json becomes a FIFO.
    const config = join(project, 'src', 'tsconfig.json');
    await rm(config);
    execFileSync('mkfifo', [config]);
    refusedNaming(await bundleError(entry, project, true), config, /FIFO/);
    await rm(config);
    assert.is(await bundleError(entry, project, true), 'built');
    // A new folder with a package.json linked to /dev/zero, and a tsconfig edited in place to extend a FIFO.
    await mkdir(join(project, 'src', 'lib'));
    await symlink('/dev/zero', join(project, 'src', 'lib', 'package.json'));
    refusedNaming(await bundleError(entry, project, true), join(project, 'src', 'lib', 'package.json'), /device/);
    await rm(join(project, 'src', 'lib'), { recursive: true });
    const fifo = join(root, 'base.json');
    execFileSync('mkfifo', [fifo]);
    await writeFile(join(project, 'tsconfig.json'), '{ "extends": "../base.json" }');
    refusedNaming(await bundleError(entry, project, true), fifo, /FIFO/);
  } finally {
    await disposeBundleContexts();
    await rm(root, { recursive: true, force: true });
  }
});

SourceFiles('should check every extends a tsconfig.json spells, as esbuild reads it: a duplicate key, escapes, comments between, a ] in a name :: extends-spelling', () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    const fifo = join(root, 'base.json');
    execFileSync('mkfifo', [fifo]);
    await writeFile(join(project, 'ok.json'), '{}');
    await writeFile(join(project, 'o]k.json'), '{}');
    const spellings = [
      '{ "extends": "../base.json", "extends": "./ok.json" }', // esbuild reads the first, TypeScript the last
      '{ "ext\\u0065nds": "..\\u002fbase.json" }',
      '{ "extends" /* shared */ : /* the base */ "../base.json" }',
      '{ "extends": ["./o]k.json", "../base.json"] }',
    ];
    for (const text of spellings) {
      await writeFile(join(project, 'tsconfig.json'), text);
      refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), fifo, /FIFO/);
    }
  }),
);

SourceFiles('should refuse a package.json of an imported package in the project node_modules that is a FIFO or a device (esbuild read it resolving the name) :: node_modules', () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    await writeFile(join(project, 'package.json'), '{ "name": "p" }');
    for (const [name, dir] of [['pkg', join(project, 'node_modules', 'pkg')], ['@acme/util/sub', join(project, 'node_modules', '@acme', 'util')]] as const) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'index.js'), 'export const v = 1;\n');
      const manifest = join(dir, 'package.json');
      execFileSync('mkfifo', [manifest]);
      await writeFile(join(project, 'src', 'main.ts'), `import { v } from '${name}';\nexport function handle(): number { return v; }\n`);
      refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), manifest, /FIFO/);
      await rm(manifest);
      await symlink('/dev/zero', manifest);
      refusedNaming(await bundleError(join(project, 'src', 'main.ts'), project), manifest, /device/);
      await rm(manifest);
      await writeFile(manifest, '{ "name": "x", "main": "index.js" }');
    }
  }),
);

SourceFiles('should refuse a source linked into /proc in the type check, which printed the environment as diagnostics (Cannot find name of each value) :: environ', () =>
  inScratch(async (root) => {
    await mkdir(join(root, 'src'));
    await symlink('/proc/self/environ', join(root, 'src', 'env.ts'));
    await writeFile(join(root, 'src', 'main.ts'), `import './env.ts';\nexport function handle(): number { return 1; }\n`);
    assert.throws(() => readSourceText(join(root, 'src', 'env.ts')), (e: unknown) => e instanceof MepError && e.code === 'ERR_BUILD' && /system tree/.test(e.message));
    const problems = await typecheckGuest(join(root, 'src', 'main.ts'), { cwd: root });
    const text = JSON.stringify(problems);
    // Each NAME=value of the environment was a "Cannot find name" diagnostic, value included.
    assert.not.match(text, /Cannot find name/, text.slice(0, 400));
    assert.ok(problems.some((p) => /environ[^]*system tree/.test(p.message)), text.slice(0, 400));
  }),
);

SourceFiles('should look at a bounded number of the exports of a package an extends names, and build when they are many (a spread of 300,000 overflowed) :: exports-bound', () =>
  inScratch(async (root) => {
    const project = await plainProject(root);
    const dir = join(project, 'node_modules', 'many');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'tsconfig.json'), '{}');
    const targets = Array.from({ length: 300_000 }, (_, n) => `./t${n}.json`);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'many', exports: { '.': targets, './x/*': { default: targets } } }));
    await writeFile(join(project, 'tsconfig.json'), '{ "extends": "many" }');
    const built = await bundleError(join(project, 'src', 'main.ts'), project);
    assert.is(built, 'built', String(built));
  }),
);

SourceFiles.run();
