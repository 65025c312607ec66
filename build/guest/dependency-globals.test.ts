import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleGuest, disposeBundleContexts } from './bundle.ts';

const Check = suite('guest build :: the sandbox check of the dependencies');

Check('should name each package that uses a global the sandbox lacks, and not one that tests for it or binds the name', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-dependency-globals-'));
  try {
    const pkg = (name: string, source: string) => {
      mkdirSync(join(dir, 'node_modules', name), { recursive: true });
      writeFileSync(join(dir, 'node_modules', name, 'package.json'), JSON.stringify({ name, version: '1.0.0', main: 'index.js' }));
      writeFileSync(join(dir, 'node_modules', name, 'index.js'), source);
    };
    pkg('net-user', 'export const get = (u) => fetch(u).then((r) => r.text()); export const env = () => process.env.HOME;');
    pkg('careful', "export const env = () => (typeof process !== 'undefined' ? process.env.HOME : '');");
    pkg('shadows', 'export const run = (self) => { const process = (x) => x; return [self.name, process(1)]; };');
    pkg('formats', "export const money = (n) => new Intl.NumberFormat('en').format(n);");
    writeFileSync(join(dir, 'package.json'), '{}');
    writeFileSync(join(dir, 'main.ts'), "import { get, env } from 'net-user';\nimport { env as env2 } from 'careful';\nimport { run } from 'shadows';\nimport { money } from 'formats';\nexport function handle(): number { void [get, env, env2, run, money]; return 0; }\n");
    const b = await bundleGuest({ entry: join(dir, 'main.ts'), runtime: 'wasm', cwd: dir });
    assert.equal(b.warnings.map((w) => `${w.package}:${w.global}`), ['formats:Intl', 'net-user:fetch', 'net-user:process']);
    assert.match(b.warnings[0]!.message, /--locale/);
    const processBuild = await bundleGuest({ entry: join(dir, 'main.ts'), runtime: 'process', cwd: dir });
    assert.equal(processBuild.warnings, [], 'a process build runs on Node, which has them');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Check('a kept build (a watch) checks again only when the package code in the bundle changed, and then finds what it reaches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-dependency-check-'));
  const lib = join(dir, 'node_modules', 'net-user', 'index.js');
  const main = join(dir, 'main.ts');
  const build = async () => {
    const b = await bundleGuest({ entry: main, runtime: 'wasm', cwd: dir }, true);
    return { check: b.dependencyCheck, warnings: b.warnings.map((w) => `${w.package}:${w.global}`) };
  };
  const uses = (names: string, line = '') => writeFileSync(main, `import { ${names} } from 'net-user';\n${line}export function handle(): number { void [${names}]; return 0; }\n`);
  try {
    mkdirSync(join(dir, 'node_modules', 'net-user'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'net-user', 'package.json'), JSON.stringify({ name: 'net-user', version: '1.0.0', main: 'index.js' }));
    writeFileSync(lib, 'export const get = (u) => fetch(u);\nexport const plain = () => 1;\n');
    writeFileSync(join(dir, 'package.json'), '{}');
    uses('plain');
    assert.equal(await build(), { check: 'bundled', warnings: [] }, 'the first build checks; tree shaking left fetch out');
    uses('plain', "const greeting = 'edited';\nvoid greeting;\n");
    assert.equal(await build(), { check: 'unchanged', warnings: [] }, 'an edit of the own code reuses the check');
    uses('plain, get');
    assert.equal(await build(), { check: 'bundled', warnings: ['net-user:fetch'] }, 'an edit that reaches more of a package checks again');
    uses('plain, get', '// a comment\n');
    assert.equal(await build(), { check: 'unchanged', warnings: ['net-user:fetch'] }, 'the reused check keeps its warnings');
    writeFileSync(lib, 'export const get = (u) => fetch(u);\nexport const plain = () => process.env.X;\n');
    assert.equal(await build(), { check: 'bundled', warnings: ['net-user:fetch', 'net-user:process'] }, 'an edited package is checked again');
    const oneOff = await bundleGuest({ entry: main, runtime: 'wasm', cwd: dir });
    assert.is(oneOff.dependencyCheck, 'bundled', 'a build that is not kept always checks');
  } finally {
    await disposeBundleContexts();
    rmSync(dir, { recursive: true, force: true });
  }
});

Check.run();
