// SLOW (about 2 minutes): uses mep-runtime as packed with `npm pack` and installed into an empty
// directory outside the repository as a user would (scripts/testing/packed.ts: npm, registry
// reachable, shared npm cache, --prefer-offline; packed once per run): the `mep` command (init,
// build, describe, generate, conformance), a plain .mjs script that imports the host API and runs
// a session, the package's types under a user's tsc, and the test kit from plain JavaScript under
// node:test, uvu and vitest. The next steps `mep init` prints, for each kind, run in
// scripts/newcomer.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, packedRuntime, ROOT, sh } from './testing/packed.ts';

const Package = suite('package :: npm pack, install into an empty project, use (slow)');

const SESSION_SCRIPT = `import { createSession, openTransport, specFromPath, isMepError } from 'mep-runtime';

const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [[[['orders']], {}]] }] };
const session = createSession({ transport: await openTransport(specFromPath('h.wasm')) });
try {
  const init = await session.start();
  const result = await session.generate({ ir, target: 'hello', options: {} });
  console.log(JSON.stringify({ id: init.extension?.id ?? init.serverInfo?.name ?? null, success: result.success, paths: result.artifacts.map((a) => a.path), isMepError: typeof isMepError }));
} finally {
  await session.close();
}
`;

const KIT_NODE_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { artifactText, openExtension, sampleIr } from 'mep-runtime/testing';

for (const target of ['h.wasm', 'h.mjs', 'hello/src/extension.ts']) {
  test(\`generates catalog.txt from \${target}\`, async () => {
    const extension = await openExtension(target);
    try {
      assert.match(artifactText(await extension.generate({ ir: sampleIr() }), 'catalog.txt'), /^module Acme\\.Customer\\.Customer$/m);
    } finally {
      await extension.close();
    }
  });
}
`;

const KIT_UVU = `import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { artifactText, minimalIr, openExtension } from 'mep-runtime/testing';

test('wasm from the source', async () => {
  const extension = await openExtension('hello/src/extension.ts', { runtime: 'wasm' });
  try {
    assert.is(artifactText(await extension.generate({ ir: minimalIr({ packageName: 'acme.a', modules: ['orders'] }) }), 'catalog.txt'), 'module Acme.A.Orders\\n');
  } finally {
    await extension.close();
  }
});
test('process from the source', async () => {
  const extension = await openExtension('hello/src/extension.ts', { runtime: 'process' });
  try {
    assert.is((await extension.generate({ ir: minimalIr() })).success, true);
  } finally {
    await extension.close();
  }
});
test.run();
`;

// A vitest spec, plain .mjs: the kit opens the built wasm module and the process script.
const KIT_VITEST = `import { describe, expect, test } from 'vitest';
import { artifactText, minimalIr, openExtension } from 'mep-runtime/testing';

describe('the hello extension under vitest', () => {
  for (const artifact of ['h.wasm', 'h.mjs']) {
    test(\`catalog.txt from \${artifact}\`, async () => {
      const extension = await openExtension(artifact);
      try {
        const result = await extension.generate({ ir: minimalIr({ packageName: 'acme.v', modules: ['orders'] }) });
        expect(result.success).toBe(true);
        expect(artifactText(result, 'catalog.txt')).toBe('module Acme.V.Orders\\n');
      } finally {
        await extension.close();
      }
    });
  }
});
`;

// The same kit, expecting what the extension does not write: vitest must report it as failed.
const KIT_VITEST_WRONG = `import { expect, test } from 'vitest';
import { artifactText, minimalIr, openExtension } from 'mep-runtime/testing';

test('a catalog the extension does not write', async () => {
  const extension = await openExtension('h.wasm');
  try {
    expect(artifactText(await extension.generate({ ir: minimalIr({ packageName: 'acme.v', modules: ['orders'] }) }), 'catalog.txt')).toBe('module Acme.V.Invoices\\n');
  } finally {
    await extension.close();
  }
});
`;

/** What vitest's JSON reporter wrote: each spec file and the status of each of its tests. */
interface VitestReport {
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

Package('should pack, install from the tarball into an empty directory, and build, describe and run an extension there', async () => {
  const { files, app } = await packedRuntime();
  try {
    assert.ok(files.includes('dist/host/src/index.js') && files.includes('dist/host/src/index.d.ts'), 'compiled host and its types');
    assert.ok(files.some((f) => /^dist\/engine\/engine-[0-9a-f]+\.guest\.wasm$/.test(f)), 'the engine ships inside');
    assert.ok(files.includes('dist/cli/bin.js'), 'the mep command ships bundled');
    assert.ok(files.includes('dist/host/src/transport/wasm/node/worker-entry.bundle.cjs'), 'the worker entry ships prebuilt');
    assert.ok(files.includes('dist/embed/browser/src/mep-wasm-worker.js'), "the browser worker script ships where createWebWorkerSpawner's default URL points");
    for (const d of ['sandbox.d.ts', 'sandbox-web.d.ts', 'sandbox-extism.d.ts']) assert.ok(files.includes(`dist/build/guest/types/${d}`), `the guest globals' ${d} ships`);
    assert.not.ok(files.some((f) => f.endsWith('.test.js') || f.startsWith('host/src/')), 'no tests and no TypeScript sources');
    assert.not.ok(existsSync(join(app, 'node_modules', 'tsx')), 'tsx is not installed for users');

    // Importing the library prints nothing (no ExperimentalWarning: WASI, which it never uses).
    const quiet = await sh(`node -e "import('mep-runtime').then((m) => { if (typeof m.createSession !== 'function') process.exit(1); })"`, app);
    assert.equal([quiet.code, quiet.stderr], [0, '']);
    await ok(`node -e "import('mep-runtime/guest-pdk').then((m) => { if (typeof m.defineExtension !== 'function') process.exit(1); })"`, app);
    assert.match(await ok('npx mep --version', app), /^mep-runtime 0\.1\.0\n$/);

    // The brief's sequence, verbatim: the new project depends on the tarball mep was installed from.
    const init = await ok(`npx mep init hello && npx mep build hello/src/extension.ts -o h.wasm && npx mep describe ./h.wasm`, app);
    assert.match(init, /"protocolVersions"/);
    // What it prints next, run for each kind of extension: scripts/newcomer.test.ts.
    assert.match(init, /Next:\n\s+cd hello && npm install/);

    // The browser and edge entries bundle for a browser platform: no node: module reaches them.
    for (const entry of ['mep-runtime/browser', 'mep-runtime/browser/worker', 'mep-runtime/workerd', 'mep-runtime/guest-pdk']) {
      await ok(`node -e "require('esbuild').buildSync({ stdin: { contents: 'export * from \\'${entry}\\';', resolveDir: '.' }, bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'error' })"`, app);
    }

    const script = join(app, 'session.mjs');
    await writeFile(script, SESSION_SCRIPT);
    const session = JSON.parse(await ok('node session.mjs', app)) as { success: boolean; paths: string[] };
    assert.is(session.success, true);
    assert.equal(session.paths, ['catalog.txt']);
    // The bundled command runs the same wasm sandboxed in a worker, from the prebuilt worker entry.
    await writeFile(join(app, 'ir.json'), JSON.stringify({ formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [[[['orders']], {}]] }] }));
    assert.match(await ok('npx mep generate --extension ./h.wasm --target hello --input ir.json --output out', app), /catalog\.txt/);

    // The same source as a process extension, and the package's types seen by a user's tsc.
    await ok('npx mep build hello/src/extension.ts --runtime process -o h.mjs && npx mep conformance ./h.mjs', app);
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['typed.ts'] }));
    await writeFile(
      join(app, 'typed.ts'),
      `import { createSession, MepError, type Session } from 'mep-runtime';\nimport { defineExtension } from 'mep-runtime/guest-pdk';\nimport type { OpenWasmSessionOptions } from 'mep-runtime/browser';\n` +
        `export const s: (o: Parameters<typeof createSession>[0]) => Session = createSession;\nexport const e: typeof MepError = MepError;\nexport const d = defineExtension;\nexport type O = OpenWasmSessionOptions;\n` +
        `// @ts-expect-error a session has no such method\ns({} as never).noSuchMethod();\n`,
    );
    await ok('npx tsc -p tsconfig.json', app);

    // The test kit from plain JavaScript, no TypeScript loader: node:test and uvu.
    await writeFile(join(app, 'kit.test.mjs'), KIT_NODE_TEST);
    assert.match(await ok('node --test kit.test.mjs', app), /^# fail 0$/m);
    // uvu, and vitest with the versions this checkout pins, in one npm install (one resolution of
    // the project's tree instead of two).
    const pins = (JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    await ok(`npm install --save-dev uvu@0.5.6 vitest@${pins.vitest} vite@${pins.vite}`, app);
    await writeFile(join(app, 'kit.uvu.mjs'), KIT_UVU);
    assert.match(await ok('node kit.uvu.mjs', app), /Passed:\s+2/);
    // ... and vitest (`vitest run`): the right catalog passes, a wrong one fails. The timeout is
    // generous because opening a module is work, not a race.
    await writeFile(join(app, 'kit.spec.mjs'), KIT_VITEST);
    await writeFile(join(app, 'kit-wrong.spec.mjs'), KIT_VITEST_WRONG);
    const vitest = await sh('npx vitest run kit --testTimeout=120000 --reporter=json --outputFile=vitest.json', app);
    assert.is(vitest.code, 1, `${vitest.stdout}\n${vitest.stderr}`);
    const report = JSON.parse(await readFile(join(app, 'vitest.json'), 'utf8')) as VitestReport;
    const statuses = Object.fromEntries(report.testResults.flatMap((file) => file.assertionResults.map((t) => [`${file.name.slice(app.length + 1)}: ${t.title}`, t.status])));
    assert.equal(statuses, {
      'kit.spec.mjs: catalog.txt from h.wasm': 'passed',
      'kit.spec.mjs: catalog.txt from h.mjs': 'passed',
      'kit-wrong.spec.mjs: a catalog the extension does not write': 'failed',
    });

    // Without TypeScript an unchanged entry still builds (its clean check is recorded); a changed
    // one says how to get a check or skip it, and builds with --no-typecheck.
    await rm(join(app, 'node_modules', 'typescript'), { recursive: true, force: true });
    await ok('npx mep build hello/src/extension.ts -o h.wasm', app);
    await writeFile(join(app, 'hello/src/extension.ts'), `${await readFile(join(app, 'hello/src/extension.ts'), 'utf8')}// changed\n`);
    const missing = await sh('npx mep build hello/src/extension.ts -o h2.wasm', app);
    assert.is(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /typescript/);
    assert.match(missing.stderr, /--no-typecheck/);
    await ok('npx mep build hello/src/extension.ts -o h2.wasm --no-typecheck', app);
  } finally {
    // The project is shared (scripts/testing/packed.ts); what this test left in it goes.
    for (const left of ['hello', 'h.wasm', 'h2.wasm', 'h.mjs', 'out']) await rm(join(app, left), { recursive: true, force: true });
  }
});

Package.run();
