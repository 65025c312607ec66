// SLOW (about a minute a kind): a new author's steps, from the packed tarball, for each kind of
// extension `mep init` scaffolds: init → the next steps it prints, run verbatim (npm install of
// the tarball, build, call on the sample, the generated tests in both runtimes) → the template's
// tsconfig in an editor's tsc → `mep pack` → `mep install` of the archive, pinned by its hash,
// into another project → the installed extension run by the command its README names.
// `npm test` runs one kind, chosen by MEP_TEST_SEED (default 0); `npm run test:long` runs all.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, packedRuntime, sh } from './testing/packed.ts';
import { seededRotation } from '../fixtures/testing/tier.ts';

const Newcomer = suite('newcomer :: init of each kind → build → call → test → pack → install → run, from the packed tarball (slow)');

/** Where a kind's installed extension runs: the project `use` (MEP_HOME in `env`), the author's project at `sample`. */
interface Place {
  use: string;
  sample: string;
  env: NodeJS.ProcessEnv;
}

interface Kind {
  /** What the sample call prints (the next steps' third command). */
  calls: RegExp;
  /** The installed extension at work, by the command its README names, and what shows it worked. */
  run(id: string, at: Place): Promise<void>;
}

const KINDS: Record<'backend' | 'frontend' | 'validator' | 'transform', Kind> = {
  backend: {
    calls: /"path": "catalog\.txt"/,
    async run(id, { use, sample, env }) {
      await ok(`npx mep generate --target ${id} --input ${sample}/morphir-ir.json --output out`, use, env);
      assert.match(await readFile(join(use, 'out/catalog.txt'), 'utf8'), /^module Acme\.Customer\./m);
    },
  },
  frontend: {
    calls: /Compiled .* 1 module/,
    async run(id, { use, sample, env }) {
      await cp(sample, join(use, 'project'), { recursive: true });
      await ok('npx mep compile project --lang tiny', use, env);
      const ir = JSON.parse(await readFile(join(use, 'project/morphir-ir.json'), 'utf8')) as { distribution: [string, unknown, unknown, { modules: [unknown][] }] };
      assert.equal(ir.distribution[3].modules.map(([path]) => path), [[['orders']]]);
    },
  },
  validator: {
    calls: /"code": "EXT002"/,
    async run(id, { use, sample, env }) {
      // Diagnostics go to stderr like a compiler's; a warning is no failure.
      const warned = await sh(`npx mep validate --input ${sample}/morphir-ir.json`, use, env);
      assert.is(warned.code, 0, `${warned.stdout}\n${warned.stderr}`);
      assert.match(warned.stderr, /^warning\[EXT002\]: Module Acme\.Customer\.Legacy defines no type/m);
      assert.match(warned.stdout, /no errors/);
      // Its option makes the finding an error: the command fails.
      const strict = await sh(`npx mep validate --input ${sample}/morphir-ir.json --option emptyModules=error`, use, env);
      assert.is(strict.code, 1, `${strict.stdout}\n${strict.stderr}`);
      assert.match(strict.stderr, /^error\[EXT002\]: Module Acme\.Customer\.Legacy/m);
    },
  },
  transform: {
    calls: /"irVersion": "3"/,
    async run(id, { use, sample, env }) {
      await ok(`npx mep transform --input ${sample}/morphir-ir.json --output out.json`, use, env);
      const ir = JSON.parse(await readFile(join(use, 'out.json'), 'utf8')) as { distribution: [string, unknown, unknown, { modules: [[string[]][]][] }] };
      const modules = ir.distribution[3].modules.map(([path]) => path.map((name) => name.join('-')).join('.'));
      assert.ok(modules.length > 0 && !modules.includes('legacy'), modules.join(', '));
    },
  },
};

const chosen = seededRotation(Object.keys(KINDS) as (keyof typeof KINDS)[]);

for (const name of chosen) {
  Newcomer(`should take a new ${name} from mep init to an installed extension that runs`, async () => {
    const { dir, tarball, app } = await packedRuntime();
    const id = `my-${name}`;
    const author = (x: string) => join(app, x);
    const use = join(app, `use-${name}`);
    const home = join(dir, `home-${name}`);
    const env = { MEP_HOME: home };
    const { calls, run } = KINDS[name];
    try {
      // The next steps as printed: the project depends on the tarball mep was installed from.
      const init = await ok(`npx mep init ${id} --kind ${name}`, app);
      const nextSteps = /Next:\n\s+(.+)\n/.exec(init)?.[1];
      assert.ok(nextSteps?.startsWith(`cd ${id} && npm install && npm run build && npx mep `), init);
      const pkg = JSON.parse(await readFile(join(author(id), 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
      assert.is(pkg.devDependencies['mep-runtime'], `file:${tarball}`);
      const steps = await ok(nextSteps as string, app);
      assert.match(steps, calls);
      assert.match(steps, /^# pass 2$/m);
      assert.match(steps, /^# fail 0$/m);

      // The template's tsconfig sees the sandbox's globals (mep-runtime/guest-pdk/globals), no DOM:
      // the editor and mep build both refuse fetch, saying why. One tsc run: its only error is
      // fetch's, so the template itself type-checks clean.
      await writeFile(join(author(id), 'src/net.ts'), `export const get = (url: string) => fetch(url);\nexport const t = setTimeout(() => {}, 1);\n`);
      const editor = await sh('npx tsc -p .', author(id));
      assert.is(editor.code, 2, editor.stdout);
      assert.equal(editor.stdout.split('\n').filter((line) => /error TS\d+/.test(line)).length, 1, editor.stdout);
      assert.match(editor.stdout, /^src\/net\.ts\(1,\d+\): error TS2304: Cannot find name 'fetch'/m);
      assert.not.match(editor.stdout, /setTimeout/);
      const refused = await sh('npx mep build src/net.ts -o dist/net.wasm', author(id));
      assert.is(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /`fetch` is not available in the wasm sandbox/);
      await rm(join(author(id), 'src/net.ts'));

      // Packed as the README says, and installed, pinned by its hash, into another project.
      const packed = await ok('npx mep pack', author(id));
      const install = /install with: (mep install \S+#sha256=[0-9a-f]{64})/.exec(packed)?.[1];
      assert.ok(install, packed);
      await mkdir(use);
      const installed = await ok(`npx ${install.replace('./', `${author(id)}/`)}`, use, env);
      assert.match(installed, new RegExp(`Installed ${id} 0\\.1\\.0 \\(wasm\\)`));
      assert.ok(existsSync(join(use, '.mep/extensions', id, 'extension.json')));
      assert.not.ok(existsSync(join(home, 'extensions')), 'a project install leaves the user scope alone');
      await run(id, { use, sample: join(author(id), 'sample'), env });
    } finally {
      for (const left of [author(id), use, home]) await rm(left, { recursive: true, force: true });
    }
  });
}

Newcomer.run();
