import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { builtAvro } from '../../../../examples/testing/built.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { repoRoot, tempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

// The real Avro backend, built to wasm (cached under .cache/examples).
const ir = join(repoRoot, 'fixtures/ir/customer/morphir-ir.json');

const Wasm = suite('cli :: wasm extension install and run');

Wasm('should probe a wasm package at install, pin its claims, and generate through selection', async () => {
  const t = await tempProject();
  try {
    const pkg = join(t.root, 'avro-pkg');
    await mkdir(pkg);
    await copyFile(await builtAvro('wasm'), join(pkg, 'avro.wasm'));
    await writeFile(join(pkg, 'extension.json'), JSON.stringify({ id: 'morphir-avro-ts', name: 'Avro', version: '0.1.0', runtime: 'wasm', entry: 'avro.wasm' }));
    const io = captureIo(t.project);
    assert.is(await main(['install', pkg, '--json'], io), 0, io.stderr.join('\n'));
    const installed = JSON.parse(io.stdout.join('\n'));
    assert.equal(installed.entry.claims.capabilities.backend.targets, ['avro']);
    assert.is(installed.abi, 'extism', 'mep build output is a portable Extism plugin');

    const run = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'avro', '--input', ir, '--output', 'out', '--json'], run), 0, run.stderr.join('\n'));
    const report = JSON.parse(run.stdout.join('\n'));
    assert.is(report.extension, 'morphir-avro-ts');
    assert.ok((await readdir(join(t.project, 'out'), { recursive: true })).some((f) => String(f).endsWith('.avsc')));
  } finally {
    await t.cleanup();
  }
});

Wasm('should say which guest ABI a wasm module needs, in describe and install', async () => {
  const t = await tempProject();
  try {
    const described = captureIo(t.project);
    assert.is(await main(['describe', await builtAvro('wasm')], described), 0, described.stderr.join('\n'));
    assert.ok(described.stderr.some((l) => l.startsWith('wasm ABI: extism (portable')), described.stderr.join('\n'));
    assert.is(JSON.parse(described.stdout.join('\n')).extension.id, 'morphir-avro-ts', 'stdout is still the claim set alone');

    // A module of the previous release imports the MEP host functions.
    const pkg = join(t.root, 'legacy-pkg');
    await mkdir(pkg);
    await writeFile(join(pkg, 'legacy.wasm'), loadWatFixture('echo'));
    await writeFile(join(pkg, 'extension.json'), JSON.stringify({ id: 'legacy.echo', name: 'Legacy', version: '0.1.0', runtime: 'wasm', entry: 'legacy.wasm' }));
    const io = captureIo(t.project);
    assert.is(await main(['install', pkg, '--no-probe'], io), 0, io.stderr.join('\n'));
    assert.ok(io.stdout.some((l) => l.includes('wasm ABI: mep-imports (legacy')), io.stdout.join('\n'));
  } finally {
    await t.cleanup();
  }
});

Wasm.run();
