// The resolver files (package.json, tsconfig.json, jsconfig.json) anywhere inside a package a
// build imports from node_modules: esbuild reads the package.json of every folder it resolves
// into (`dist/esm/` of `"exports": "./dist/esm/index.js"`) before any hook, so each is checked
// before esbuild resolves the package's name (resolver-files.ts, checkPackage).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MepError } from '../../host/src/protocol/errors.ts';
import { disposeBundleContexts } from './bundle.ts';
import { MAX_PACKAGE_FOLDERS } from './resolver-files.ts';
import { bundleError as bundleErrorOf, inScratch as inScratchOf, refusedNaming } from './testing/bundle-error.ts';

const PackageFiles = suite('build :: resolver files inside imported packages');

/** Runs `body` in a fresh scratch folder, its kept esbuild contexts disposed after. */
const inScratch = (body: (root: string) => Promise<void>): Promise<void> =>
  inScratchOf('package-files', async (root) => {
    try {
      await body(root);
    } finally {
      await disposeBundleContexts();
    }
  });

/** The bundle's error, 'built', or 'hung' after 20 s (these builds end in well under a second). */
const bundleError = (entry: string, cwd: string, keep = false): Promise<unknown> => bundleErrorOf(entry, cwd, keep, 20_000);

/** `root/project` importing `name`, and the package's folder `node_modules/<name>` with `manifest` and `dist/esm/index.js`. */
async function projectWith(root: string, name: string, manifest: object): Promise<{ entry: string; project: string; pkg: string }> {
  const project = join(root, 'project');
  const pkg = join(project, 'node_modules', name);
  await mkdir(join(project, 'src'), { recursive: true });
  await mkdir(join(pkg, 'dist', 'esm'), { recursive: true });
  await writeFile(join(project, 'package.json'), '{ "name": "p" }');
  await writeFile(join(pkg, 'package.json'), JSON.stringify({ name, ...manifest }));
  await writeFile(join(pkg, 'dist', 'esm', 'index.js'), 'export const v = 3;\n');
  const entry = join(project, 'src', 'main.ts');
  await writeFile(entry, `import { v } from '${name}';\nexport function handle(): number { return v; }\n`);
  return { entry, project, pkg };
}

PackageFiles('should refuse a package.json in the folder an import resolves into (exports, main) that is a FIFO or a link to /dev/zero, naming it (esbuild read it for good) :: package-subfolder', () =>
  inScratch(async (root) => {
    for (const [name, manifest] of [['pkg', { exports: { '.': './dist/esm/index.js' } }], ['@acme/lib', { main: 'dist/esm/index.js' }]] as const) {
      const { entry, project, pkg } = await projectWith(join(root, name.replace('/', '-')), name, manifest);
      assert.is(await bundleError(entry, project), 'built');
      const nested = join(pkg, 'dist', 'esm', 'package.json');
      execFileSync('mkfifo', [nested]);
      const error = await bundleError(entry, project);
      refusedNaming(error, nested, /FIFO/, 'ERR_BUILD');
      assert.is(((error as MepError).data as { reason?: string }).reason, 'not-a-source-file');
      await rm(nested);
      await symlink('/dev/zero', nested);
      refusedNaming(await bundleError(entry, project), nested, /device/);
      await rm(nested);
      // Anywhere in the package, not only where this import resolves: a tsconfig.json linked to a FIFO elsewhere.
      const fifo = join(root, 'elsewhere.json');
      execFileSync('mkfifo', [fifo]);
      await mkdir(join(pkg, 'src', '.hidden'), { recursive: true });
      await symlink(fifo, join(pkg, 'src', '.hidden', 'tsconfig.json'));
      refusedNaming(await bundleError(entry, project), join(pkg, 'src', '.hidden', 'tsconfig.json'), /FIFO/);
      await rm(join(pkg, 'src'), { recursive: true });
      await rm(fifo);
      assert.is(await bundleError(entry, project), 'built');
      // Imported by a path through node_modules, not by its name: walked the same way.
      await writeFile(entry, `import { v } from '../node_modules/${name}/dist/esm/index.js';\nexport function handle(): number { return v; }\n`);
      execFileSync('mkfifo', [nested]);
      refusedNaming(await bundleError(entry, project), nested, /FIFO/, 'ERR_BUILD');
      await rm(nested);
      assert.is(await bundleError(entry, project), 'built');
    }
  }),
);

PackageFiles('should walk a folder of a package that is a link at its target (esbuild read through it for good), end a loop of links, and not walk the node_modules of a package until imported :: package-links', () =>
  inScratch(async (root) => {
    const { entry, project, pkg } = await projectWith(root, 'pkg', { main: 'dist/esm/index.js' });
    // A package of its own under pkg, not imported: not this package's walk.
    const other = join(pkg, 'node_modules', 'other');
    await mkdir(join(other, 'lib'), { recursive: true });
    execFileSync('mkfifo', [join(other, 'lib', 'package.json')]);
    await symlink(pkg, join(pkg, 'dist', 'loop')); // a loop of links
    assert.is(await bundleError(entry, project), 'built');
    // dist a link elsewhere (a git dependency's), its esm/package.json a FIFO: esbuild read it resolving pkg.
    const away = join(root, 'away', 'dist');
    await mkdir(join(away, 'esm'), { recursive: true });
    await writeFile(join(away, 'esm', 'index.js'), 'export const v = 5;\n');
    execFileSync('mkfifo', [join(away, 'esm', 'package.json')]);
    await rm(join(pkg, 'dist'), { recursive: true });
    await symlink(away, join(pkg, 'dist'));
    refusedNaming(await bundleError(entry, project), join(away, 'esm', 'package.json'), /FIFO/, 'ERR_BUILD');
    await rm(join(away, 'esm', 'package.json'));
    assert.is(await bundleError(entry, project), 'built');
    // Imported by pkg, the nested package is walked in its turn.
    await writeFile(join(other, 'package.json'), '{ "name": "other", "main": "index.js" }');
    await writeFile(join(other, 'index.js'), 'export const w = 4;\n');
    await rm(join(pkg, 'dist'));
    await mkdir(join(pkg, 'dist', 'esm'), { recursive: true });
    await writeFile(join(pkg, 'dist', 'esm', 'index.js'), "export { w as v } from 'other';\n");
    refusedNaming(await bundleError(entry, project), join(other, 'lib', 'package.json'), /FIFO/, 'ERR_BUILD');
  }),
);

PackageFiles('should walk a folder of the project that is a link at its target, whose package.json a FIFO held the build for good :: project-link', () =>
  inScratch(async (root) => {
    const project = join(root, 'project');
    const away = join(root, 'away', 'lib');
    await mkdir(join(project, 'src'), { recursive: true });
    await mkdir(away, { recursive: true });
    await writeFile(join(project, 'package.json'), '{ "name": "p" }');
    await writeFile(join(away, 'x.js'), 'export const v = 3;\n');
    await symlink(away, join(project, 'src', 'lib'));
    const entry = join(project, 'src', 'main.ts');
    await writeFile(entry, "import { v } from './lib/x.js';\nexport function handle(): number { return v; }\n");
    assert.is(await bundleError(entry, project), 'built');
    execFileSync('mkfifo', [join(away, 'package.json')]);
    refusedNaming(await bundleError(entry, project), join(away, 'package.json'), /FIFO/, 'ERR_BUILD');
  }),
);

PackageFiles('should check again, at a watch rebuild, the folders of an imported package that changed (a package.json swapped for a FIFO) :: package-watch', () =>
  inScratch(async (root) => {
    const { entry, project, pkg } = await projectWith(root, 'pkg', { exports: './dist/esm/index.js' });
    assert.is(await bundleError(entry, project, true), 'built');
    const nested = join(pkg, 'dist', 'esm', 'package.json');
    execFileSync('mkfifo', [nested]);
    refusedNaming(await bundleError(entry, project, true), nested, /FIFO/);
    await rm(nested);
    assert.is(await bundleError(entry, project, true), 'built');
    await mkdir(join(pkg, 'dist', 'cjs', 'deep'), { recursive: true });
    await symlink('/dev/zero', join(pkg, 'dist', 'cjs', 'deep', 'jsconfig.json'));
    refusedNaming(await bundleError(entry, project, true), join(pkg, 'dist', 'cjs', 'deep', 'jsconfig.json'), /device/);
  }),
);

PackageFiles('should refuse a package of more folders than MAX_PACKAGE_FOLDERS, naming the package and the limit :: package-bound', () =>
  inScratch(async (root) => {
    const { entry, project, pkg } = await projectWith(root, 'pkg', { main: 'dist/esm/index.js' });
    for (let n = 0; n < MAX_PACKAGE_FOLDERS; n++) mkdirSync(join(pkg, 'many', String(n % 100), String(n)), { recursive: true });
    const error = await bundleError(entry, project);
    refusedNaming(error, pkg, new RegExp(`${MAX_PACKAGE_FOLDERS}`), 'ERR_LIMIT');
    assert.is(((error as MepError).data as { limit?: string }).limit, 'MAX_PACKAGE_FOLDERS');
  }),
);

PackageFiles.run();
