// `mep build` without arguments builds what extension.json names; `mep pack` refuses a build
// older than the sources it recorded (issue 36).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const Manifest = suite('cli :: mep build from extension.json, mep pack of a stale build');

const source = (word: string): string => `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'acme.made', name: 'made', version: '0.1.0' },
  backend: { targets: ['made'], irVersions: ['3'], generate: () => ({ artifacts: [textArtifact('w.txt', '${word}')] }) },
});
`;

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mep-build-manifest-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"made","private":true,"type":"module"}\n');
  writeFileSync(join(dir, 'extension.json'), `${JSON.stringify({ id: 'acme.made', name: 'made', version: '0.1.0', runtime: 'process', entry: 'dist/extension.mjs', permissions: {} })}\n`);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'extension.ts'), source('one'));
  return dir;
}

async function run(dir: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(dir);
  const code = await main(argv, io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

Manifest('builds the manifest entry with its runtime; pack refuses it once a source changed, and packs the rebuild', async () => {
  const dir = project();
  try {
    const built = await run(dir, 'build', '--no-typecheck');
    assert.is(built.code, 0, built.err);
    assert.match(built.out, /Built .*dist\/extension\.mjs \(process, \d+ KB\)$/m);
    assert.not.match(built.out, /exports:/, 'a process build prints no empty exports list');
    assert.ok(existsSync(join(dir, 'dist', 'extension.mjs.build.json')));
    assert.is((await run(dir, 'pack', '-o', 'a.tgz')).code, 0);

    writeFileSync(join(dir, 'src', 'extension.ts'), source('two'));
    const stale = await run(dir, 'pack', '-o', 'b.tgz');
    assert.not.equal(stale.code, 0);
    assert.match(stale.err, /dist\/extension\.mjs is older than its sources \(src\/extension\.ts changed since it was built\).*mep build/s);
    assert.not.ok(existsSync(join(dir, 'b.tgz')));

    assert.is((await run(dir, 'build', '--no-typecheck')).code, 0);
    const packed = await run(dir, 'pack', '-o', 'b.tgz');
    assert.is(packed.code, 0, packed.err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Manifest('without a source to build, says to pass the entry', async () => {
  const dir = project();
  try {
    rmSync(join(dir, 'src'), { recursive: true });
    const r = await run(dir, 'build', '--no-typecheck');
    assert.is(r.code, 2);
    assert.match(r.err, /extension\.json names dist\/extension\.mjs.*pass the entry/s);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Manifest.run();
