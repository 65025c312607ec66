// A process extension's source map ships with it: `mep build --runtime process` writes
// `<entry>.map` beside the script, and install (from a directory or from what `mep pack` wrote,
// with the map in SHA256SUMS) puts it beside the installed entry, so an installed extension's
// throw is still reported at the author's `src/...ts:line`. A map is a member like any other: one
// that links out of the package is refused, one changed after packing fails the sums.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildGuest } from '../../../build/guest/index.ts';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import type { StackFrame } from '../transport/source-map/stack.ts';
import { installExtension } from './install.ts';
import { packExtension } from './pack.ts';
import { registryPaths } from './paths.ts';
import { withProject, writeMultiPlatformPackage } from './test-support.ts';
import type { TempProject } from './test-support.ts';

const run = promisify(execFile);

// The throw is on line 3 of src/lib/fail.ts.
const FAIL = `export function fail(why: string): never {
  // line 2
  throw new Error(why);
}
`;
const EXTENSION = `import { defineExtension } from 'mep-runtime/guest-pdk';
import { fail } from './lib/fail.ts';

export default defineExtension({
  info: { id: 'acme.mapped', name: 'Mapped', version: '1.0.0' },
  backend: { targets: ['mapped'], irVersions: ['3'], generate: () => fail('boom') },
});
`;
const MANIFEST = { id: 'acme.mapped', name: 'Mapped', version: '1.0.0', runtime: 'process', entry: 'dist/ext.mjs' };
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

let built: string;

/** The author's project, built once: sources, extension.json, dist/ext.mjs and dist/ext.mjs.map. */
async function buildAuthorProject(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-package-map-'));
  await mkdir(join(dir, 'src', 'lib'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'mapped', private: true, type: 'module' }));
  await writeFile(join(dir, 'src', 'lib', 'fail.ts'), FAIL);
  await writeFile(join(dir, 'src', 'extension.ts'), EXTENSION);
  await writeFile(join(dir, 'extension.json'), JSON.stringify(MANIFEST));
  await buildGuest({ entry: join(dir, 'src', 'extension.ts'), outFile: join(dir, 'dist', 'ext.mjs'), runtime: 'process', cwd: dir, typecheck: false });
  return dir;
}

/** A copy of the built project under the test's root (each test may spoil its own). */
async function authorCopy(t: TempProject, name = 'author'): Promise<string> {
  const dir = join(t.root, name);
  await run('cp', ['-R', built, dir]);
  return dir;
}

/** Every file under `dir`, relative and sorted. */
async function files(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((d) => !d.isDirectory())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

/** The first frame in the author's code of the installed extension's failing generate. */
async function originOfInstalled(t: TempProject): Promise<StackFrame> {
  const io = captureIo(t.project);
  assert.is(await main(['call', 'acme.mapped', 'generate', JSON.stringify({ ir, target: 'mapped' }), '--json'], io), 3, io.stderr.join('\n'));
  const error = JSON.parse(io.stdout.join('\n')).error as { code: number; data: { origin: StackFrame } };
  assert.is(error.code, -32603);
  return error.data.origin;
}

const Shipped = suite('registry :: a process extension ships its source map');

Shipped.before(async () => {
  built = await buildAuthorProject();
});
Shipped.after(() => rm(built, { recursive: true, force: true }));

Shipped('should install the map beside the entry from a directory, and report the installed throw at src/lib/fail.ts:3', () =>
  withProject(async (t) => {
    const result = await installExtension({ source: await authorCopy(t), paths: registryPaths({ cwd: t.project }) });
    assert.equal(await files(result.dir), ['dist/ext.mjs', 'dist/ext.mjs.map', 'extension.json']);
    const origin = await originOfInstalled(t);
    assert.equal([origin.file, origin.line], ['src/lib/fail.ts', 3]);
  }),
);

Shipped('should pack the map and list it in SHA256SUMS, and report the throw of what was installed from the archive at the source line', () =>
  withProject(async (t) => {
    const packed = await packExtension({ dir: await authorCopy(t), cwd: t.root });
    assert.equal(packed.files, ['SHA256SUMS', 'dist/ext.mjs', 'dist/ext.mjs.map', 'extension.json']);
    const top = join(t.root, 'unpacked');
    await mkdir(top);
    await run('tar', ['-xzf', packed.file, '-C', top]);
    const sums = await readFile(join(top, 'acme.mapped-1.0.0', 'SHA256SUMS'), 'utf8');
    assert.match(sums, /^[0-9a-f]{64} {2}dist\/ext\.mjs\.map$/m);
    await run('sha256sum', ['--check', '--quiet', 'SHA256SUMS'], { cwd: join(top, 'acme.mapped-1.0.0') });
    const io = captureIo(t.project);
    assert.is(await main(['install', `${packed.file}#sha256=${packed.sha256}`, '--json'], io), 0, io.stderr.join('\n'));
    const origin = await originOfInstalled(t);
    assert.equal([origin.file, origin.line], ['src/lib/fail.ts', 3]);
  }),
);

Shipped('should refuse a map changed after packing, as any member whose hash differs from SHA256SUMS, installing nothing :: hostile', () =>
  withProject(async (t) => {
    const packed = await packExtension({ dir: await authorCopy(t), cwd: t.root });
    const top = join(t.root, 'unpacked');
    await mkdir(top);
    await run('tar', ['-xzf', packed.file, '-C', top]);
    await writeFile(join(top, 'acme.mapped-1.0.0', 'dist', 'ext.mjs.map'), '{"version":3,"sources":["elsewhere.ts"],"mappings":""}');
    const tampered = join(t.root, 'tampered.tgz');
    await run('tar', ['-czf', tampered, '-C', top, 'acme.mapped-1.0.0']);
    const error = await installExtension({ source: tampered, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
    assert.equal([error.code, error.data?.reason, error.data?.problem, error.data?.file], [LocalErrorCode.Registry, 'sums-mismatch', 'hash', 'dist/ext.mjs.map']);
    assert.not.ok(await readdir(join(t.project, '.mep')).catch(() => undefined));
  }),
);

Shipped('should refuse a map that is a symlink out of the package, from install and from pack, copying nothing :: hostile', () =>
  withProject(async (t) => {
    const dir = await authorCopy(t);
    await writeFile(join(t.root, 'secret.txt'), 'not in the package');
    await rm(join(dir, 'dist', 'ext.mjs.map'));
    await symlink(join(t.root, 'secret.txt'), join(dir, 'dist', 'ext.mjs.map'));
    const installed = await installExtension({ source: dir, paths: registryPaths({ cwd: t.project }) }).catch((e) => e);
    assert.equal([installed.code, installed.data?.reason, installed.data?.entry], [LocalErrorCode.Registry, 'unsafe-entry', 'dist/ext.mjs.map']);
    const packed = await packExtension({ dir, cwd: t.root }).catch((e) => e);
    assert.equal([packed.code, packed.data?.reason], [LocalErrorCode.Registry, 'unsafe-entry']);
    assert.not.ok(await readdir(join(t.project, '.mep')).catch(() => undefined));
    assert.equal((await readdir(t.root)).filter((name) => name.endsWith('.tgz')), []);
  }),
);

Shipped("should install a per-platform executable's map as <entry>.map, pack every platform's, and take no map for a wasm module", () =>
  withProject(async (t) => {
    const multi = await writeMultiPlatformPackage(join(t.root, 'multi'));
    await writeFile(join(multi, 'bin', 'crm-linux-amd64.map'), '{"version":3,"sources":[],"mappings":""}');
    await writeFile(join(multi, 'bin', 'crm-darwin-arm64.map'), '{"version":3,"sources":[],"mappings":""}');
    const result = await installExtension({ source: multi, paths: registryPaths({ cwd: t.project }), probe: false, platform: { os: 'linux', arch: 'amd64' } });
    assert.equal(await files(result.dir), ['bin/crm', 'bin/crm.map', 'extension.json']);
    const packed = await packExtension({ dir: multi, cwd: t.root });
    assert.equal(packed.files, ['SHA256SUMS', 'bin/crm-darwin-arm64', 'bin/crm-darwin-arm64.map', 'bin/crm-linux-amd64', 'bin/crm-linux-amd64.map', 'bin/crm-windows-amd64.exe', 'extension.json']);

    const wasm = join(t.root, 'wasm');
    await mkdir(wasm);
    await writeFile(join(wasm, 'extension.json'), JSON.stringify({ id: 'acme.w', name: 'W', version: '1.0.0', runtime: 'wasm', entry: 'ext.wasm' }));
    await writeFile(join(wasm, 'ext.wasm'), 'not read by pack');
    await writeFile(join(wasm, 'ext.wasm.map'), '{}');
    assert.equal((await packExtension({ dir: wasm, cwd: t.root })).files, ['SHA256SUMS', 'ext.wasm', 'extension.json']);
  }),
);

Shipped.run();
