// A quiet library: importing mep-runtime, running a wasm session inline and in a worker, and the
// mep command print nothing of their own on stderr; other code's warnings still get through.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURE_DIR } from '../../build/guest/testing/fixtures.ts';
import { buildGuest } from '../../build/guest/index.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs an ES module script with this checkout's sources (through tsx), in a clean environment. */
function run(script: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, ...args], { cwd: root, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const Quiet = suite('mep-runtime :: a quiet library');

Quiet('should print nothing when imported, and nothing when a wasm guest runs inline or in a worker', async () => {
  const dir = join(FIXTURE_DIR, 'quiet');
  mkdirSync(dir, { recursive: true });
  const entry = join(dir, 'quiet.ts');
  writeFileSync(entry, `import { defineExtension } from 'mep-runtime/guest-pdk';\nexport default defineExtension({ info: { id: 'quiet', name: 'quiet', version: '1.0.0' }, backend: { targets: ['q'], irVersions: ['3'], generate: () => ({ artifacts: [] }) } });\n`);
  const wasm = join(dir, 'quiet.wasm');
  await buildGuest({ entry, outFile: wasm, typecheck: false });
  const imported = await run(`await import('./host/src/index.ts'); console.log('imported');`);
  assert.is(imported.stderr, '');
  assert.is(imported.stdout, 'imported\n');
  const script = `
    const { createSession, openTransport, specFromPath } = await import('./host/src/index.ts');
    for (const isolation of ['inline', 'worker']) {
      const session = createSession({ transport: await openTransport(specFromPath(process.argv[1], { wasm: { isolation } })) });
      try { await session.start(); console.log(isolation, JSON.stringify(await session.ping())); } finally { await session.close(); }
    }
    process.emitWarning('not ours', 'ExperimentalWarning');`;
  const ran = await run(script, [wasm]);
  assert.is(ran.stdout, 'inline {"ok":true}\nworker {"ok":true}\n');
  // Only the warning the script itself emitted: the SDK's WASI warning is held back, no other.
  assert.match(ran.stderr, /ExperimentalWarning: not ours/);
  assert.not.match(ran.stderr, /WASI/);
  const cli = await run(`process.argv.splice(1, 0, 'mep'); await import('./host/src/cli/bin.ts');`, ['describe', wasm]);
  assert.is(cli.code, 0, cli.stderr);
  assert.not.match(cli.stderr, /Warning/);
});

Quiet.run();
