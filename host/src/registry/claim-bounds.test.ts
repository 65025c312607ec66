import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { HOST_BOUNDS, HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { backend, configurableFixture, repoRoot, withProject, writePackage, type TempProject } from './test-support.ts';

const ir = join(repoRoot, 'fixtures/ir/customer/morphir-ir.json');

interface Run {
  code: number;
  error?: { code: string; data: Record<string, unknown> };
  stderr: string;
}

async function mep(t: TempProject, args: string[]): Promise<Run> {
  const io = captureIo(t.project);
  const started = performance.now();
  const code = await main([...args, '--json'], io);
  const out = io.stdout.join('\n');
  const parsed = out ? (JSON.parse(out) as { error?: Run['error'] }) : {};
  return { code, ...(parsed.error ? { error: parsed.error } : {}), stderr: `${io.stderr.join('\n')} (${Math.round(performance.now() - started)} ms)` };
}

/** A backend whose claims carry `extra` as an unknown member of its backend capability (carried unchanged, MEP 0.1). */
const crm = backend('crm').backend as Record<string, unknown>;
const hostileBackend = (extra: unknown) => ({ backend: { ...crm, extra } });
let deep: unknown = 'bottom';
for (let i = 0; i < 60; i++) deep = { down: deep, wide: Array.from({ length: 40 }, (_, j) => `leaf-${i}-${j}`) };

const cases: [string, Record<string, unknown>, string][] = [
  ['deep and wide', hostileBackend(deep), 'maxMetadataDepth'],
  ['10,000 targets', { backend: { ...crm, targets: Array.from({ length: 10_000 }, (_, i) => `t${i}`) } }, 'maxMetadataItems'],
  ['a 100 KB string', hostileBackend('x'.repeat(100_000)), 'maxMetadataStringLength'],
  ['many small members', hostileBackend(Array.from({ length: 100 }, (_, i) => Array.from({ length: 100 }, (_, j) => `${i}.${j}`))), 'maxMetadataChars'],
];

const Claims = suite('registry :: what an extension says about itself is bounded before it is pinned');

for (const [name, capabilities, limit] of cases) {
  Claims(`should refuse claims with ${name} at install, naming the bound, and pin nothing :: hostile`, () =>
    withProject(async (t) => {
      const pkg = await writePackage(join(t.root, 'hostile'), { id: 'acme.hostile', capabilities });
      const run = await mep(t, ['install', pkg, '--probe']);
      assert.is(run.code, 3, run.stderr);
      assert.is(run.error?.code, 'ERR_LIMIT', JSON.stringify(run.error).slice(0, 400));
      assert.is(run.error?.data.limit, limit);
      assert.is(run.error?.data.bound, HOST_BOUNDS[limit as keyof typeof HOST_BOUNDS]);
      const lock = await readFile(join(t.project, '.mep/extensions.lock'), 'utf8').catch(() => '{"extensions":{}}');
      assert.not.ok('acme.hostile' in (JSON.parse(lock) as { extensions: object }).extensions);
    }),
  );
}

Claims('should refuse a manifest whose version or name is longer than a claim\'s string may be, at install, pinning nothing :: hostile', () =>
  withProject(async (t) => {
    // A process package is not asked for its claims at install, and its manifest's version went
    // into the lock as written: 400,000 characters of it (a lock of 400 KB read by every command).
    const long = 'x'.repeat(HOST_BOUNDS.maxMetadataStringLength + 1);
    for (const [what, pkg] of [
      ['version', { id: 'acme.long', version: `1.0.0-${long}`, capabilities: backend('a') }],
      ['name', { id: 'acme.long', capabilities: backend('a'), manifest: { name: long } }],
    ] as const) {
      const run = await mep(t, ['install', await writePackage(join(t.root, `long-${what}`), pkg)]);
      assert.is(run.code, 3, run.stderr);
      assert.is(run.error?.code, 'ERR_REGISTRY', JSON.stringify(run.error).slice(0, 400));
      assert.match(JSON.stringify(run.error).slice(0, 2000), what);
      const lock = await readFile(join(t.project, '.mep/extensions.lock'), 'utf8').catch(() => '{"extensions":{}}');
      assert.not.ok('acme.long' in (JSON.parse(lock) as { extensions: object }).extensions, what);
    }
  }),
);

Claims('should refuse such claims read at the first session too, and the initialize result of a session :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'hostile'), { id: 'acme.hostile', capabilities: hostileBackend(deep) });
    assert.is((await mep(t, ['install', pkg, '--no-probe'])).code, 0);
    const first = await mep(t, ['generate', '--extension', 'acme.hostile', '--target', 'crm', '--input', ir, '--output', 'out']);
    assert.is(first.error?.code, 'ERR_LIMIT', first.stderr);
    const lock = JSON.parse(await readFile(join(t.project, '.mep/extensions.lock'), 'utf8')) as { extensions: Record<string, { claims?: unknown }> };
    assert.is(lock.extensions['acme.hostile']?.claims, undefined, 'no claims were pinned');
    // By path there is no claim set: the initialize result itself is bounded.
    const script = join(t.root, 'hostile.mjs');
    await writeFile(script, `process.argv[2] = ${JSON.stringify(JSON.stringify({ id: 'acme.hostile', capabilities: hostileBackend(deep) }))};\nawait import(${JSON.stringify(configurableFixture)});\n`);
    const byPath = await mep(t, ['generate', '--extension', script, '--target', 'crm', '--input', ir, '--output', 'out']);
    assert.is(byPath.error?.code, 'ERR_LIMIT', byPath.stderr);
    assert.is(byPath.error?.data.limit, 'maxMetadataDepth');
  }),
);

Claims('should refuse a lock larger than the host reads before parsing it, and one whose pinned claims are out of bounds :: hostile', () =>
  withProject(async (t) => {
    const lockPath = join(t.project, '.mep/extensions.lock');
    const pkg = await writePackage(join(t.root, 'ok'), { id: 'acme.ok', capabilities: backend('crm') });
    assert.is((await mep(t, ['install', pkg, '--probe'])).code, 0);
    const pinned = await readFile(lockPath, 'utf8');
    await writeFile(lockPath, `${pinned.trimEnd().slice(0, -1)},"padding":"${'x'.repeat(HOST_FILE_LIMITS.lockBytes)}"}`);
    const big = await mep(t, ['list']);
    assert.is(big.code, 3, big.stderr);
    assert.is(big.error?.code, 'ERR_LIMIT');
    assert.is(big.error?.data.reason, 'too-large');
    assert.is(big.error?.data.maxBytes, HOST_FILE_LIMITS.lockBytes);
    const lock = JSON.parse(pinned) as { extensions: Record<string, { claims: { capabilities: { backend: Record<string, unknown> } } }> };
    (lock.extensions['acme.ok'] as { claims: { capabilities: { backend: Record<string, unknown> } } }).claims.capabilities.backend.extra = deep;
    await writeFile(lockPath, JSON.stringify(lock));
    // Edited, the project's lock runs no process extension until trusted again (trust-lock.test.ts): trust it to reach the claims.
    assert.is((await mep(t, ['trust'])).code, 0);
    const run = await mep(t, ['generate', '--extension', 'acme.ok', '--target', 'crm', '--input', ir, '--output', 'out']);
    assert.is(run.code, 3, run.stderr);
    assert.is(run.error?.data.reason, 'bad-claims', JSON.stringify(run.error));
  }),
);

Claims.run();
