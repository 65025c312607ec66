// SLOW (about 2–3 minutes): packs mep-runtime with `npm pack` (which runs `npm run build`),
// installs the tarball into empty directories outside the repository as a user would (npm,
// registry reachable, shared npm cache, --prefer-offline) and uses it there: the `mep` command
// (init, build, describe, conformance), the next steps `mep init` prints, run verbatim (the new
// project depends on the tarball this mep came from, and its own tests pass), a plain .mjs
// script that imports the host API and runs a session, and the test kit from plain JavaScript
// under node:test, uvu and vitest. Removes its temp dir.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const Package = suite('package :: npm pack, install into an empty project, use (slow)');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a shell command line in `cwd` with npm kept offline-first and quiet. */
function sh(line: string, cwd: string): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  // A loader or option of this test process (tsx) must not leak into the user's processes.
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile('sh', ['-c', line], { cwd, env, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
    });
  });
}

async function ok(line: string, cwd: string): Promise<string> {
  const r = await sh(line, cwd);
  assert.is(r.code, 0, `'${line}' in ${cwd} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

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
  const dir = await mkdtemp(join(tmpdir(), 'mep-pack-'));
  try {
    // prepack (npm run build) prints its summary before npm's JSON.
    const packOut = await ok(`npm pack --silent --json --pack-destination ${JSON.stringify(dir)}`, root);
    const packed = JSON.parse(packOut.slice(packOut.search(/^\[/m))) as { filename: string; files: { path: string }[] }[];
    const tarball = packed[0]?.filename as string;
    const files = packed[0]?.files.map((f) => f.path) ?? [];
    assert.ok(files.includes('dist/host/src/index.js') && files.includes('dist/host/src/index.d.ts'), 'compiled host and its types');
    assert.ok(files.some((f) => /^dist\/engine\/engine-[0-9a-f]+\.Oz\.wasm$/.test(f)), 'the engine ships inside');
    assert.ok(files.includes('dist/cli/bin.js'), 'the mep command ships bundled');
    assert.ok(files.includes('dist/host/src/transport/wasm/node/worker-entry.bundle.js'), 'the worker entry ships prebuilt');
    assert.ok(files.includes('dist/embed/browser/src/mep-wasm-worker.js'), "the browser worker script ships where createWebWorkerSpawner's default URL points");
    for (const d of ['sandbox.d.ts', 'sandbox-web.d.ts', 'sandbox-extism.d.ts']) assert.ok(files.includes(`dist/build/guest/types/${d}`), `the guest globals' ${d} ships`);
    assert.not.ok(files.some((f) => f.endsWith('.test.js') || f.startsWith('host/src/')), 'no tests and no TypeScript sources');

    const app = join(dir, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`);
    await ok(`npm install ../${tarball}`, app);
    assert.not.ok(existsSync(join(app, 'node_modules', 'tsx')), 'tsx is not installed for users');

    // Importing the library prints nothing (no ExperimentalWarning: WASI, which it never uses).
    const quiet = await sh(`node -e "import('mep-runtime').then((m) => { if (typeof m.createSession !== 'function') process.exit(1); })"`, app);
    assert.equal([quiet.code, quiet.stderr], [0, '']);
    await ok(`node -e "import('mep-runtime/guest-pdk').then((m) => { if (typeof m.defineExtension !== 'function') process.exit(1); })"`, app);
    assert.match(await ok('npx mep --version', app), /^mep-runtime 0\.1\.0\n$/);

    // The brief's sequence, verbatim: the new project depends on the tarball mep was installed from.
    const init = await ok(`npx mep init hello && npx mep build hello/src/extension.ts -o h.wasm && npx mep describe ./h.wasm`, app);
    assert.match(init, /"protocolVersions"/);
    const nextSteps = /Next:\n\s+(.+)\n/.exec(init)?.[1];
    assert.ok(nextSteps?.startsWith('cd hello && npm install'), init);

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

    // What `mep init` told the user to do, run as printed: install, build, call, and its own tests.
    const pkg = JSON.parse(await readFile(join(app, 'hello', 'package.json'), 'utf8'));
    assert.is(pkg.devDependencies['mep-runtime'], `file:${join(dir, tarball)}`);
    const steps = await ok(nextSteps as string, app);
    assert.match(steps, /"path": "catalog\.txt"/);
    assert.match(steps, /^# pass 2$/m);
    assert.match(steps, /^# fail 0$/m);

    // The test kit from plain JavaScript, no TypeScript loader: node:test and uvu.
    await writeFile(join(app, 'kit.test.mjs'), KIT_NODE_TEST);
    assert.match(await ok('node --test kit.test.mjs', app), /^# fail 0$/m);
    await ok('npm install --save-dev uvu@0.5.6', app);
    await writeFile(join(app, 'kit.uvu.mjs'), KIT_UVU);
    assert.match(await ok('node kit.uvu.mjs', app), /Passed:\s+2/);
    // ... and vitest (`vitest run`, the versions this checkout pins): the right catalog passes,
    // a wrong one fails. The timeout is generous because opening a module is work, not a race.
    const pins = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;
    await ok(`npm install --save-dev vitest@${pins.vitest} vite@${pins.vite}`, app);
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

    // The template's tsconfig sees the sandbox's globals (mep-runtime/guest-pdk/globals), no DOM:
    // the editor and mep build both refuse fetch, saying why.
    await ok('npx tsc -p .', join(app, 'hello'));
    await writeFile(join(app, 'hello/src/net.ts'), `export const get = (url: string) => fetch(url);\nexport const t = setTimeout(() => {}, 1);\n`);
    const editor = await sh('npx tsc -p .', join(app, 'hello'));
    assert.is(editor.code, 2, editor.stdout);
    assert.match(editor.stdout, /src\/net\.ts\(1,\d+\): error TS2304: Cannot find name 'fetch'/);
    assert.not.match(editor.stdout, /setTimeout/);
    const refused = await sh('npx mep build src/net.ts -o dist/net.wasm', join(app, 'hello'));
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /`fetch` is not available in the wasm sandbox/);
    await rm(join(app, 'hello/src/net.ts'));

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
    await rm(dir, { recursive: true, force: true });
  }
});

Package.run();
