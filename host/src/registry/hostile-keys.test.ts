import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureIo } from '../cli/io.ts';
import { main } from '../cli/main.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { approvedSecrets } from './approvals.ts';
import { lockEntryOf, readLock } from './lock.ts';
import { readManifest } from './manifest.ts';
import { registryPaths } from './paths.ts';
import { parseExtensionId } from './extension-id.ts';
import { backend, withProject, writePackage } from './test-support.ts';
import { thrownCode } from '../../../fixtures/testing/error-codes.ts';

const Keys = suite('registry :: hostile keys in the files the host reads');
const sha = 'a'.repeat(64);

/** `data.reason` and `data.key` of what `promise` rejects with, or 'accepted'. */
async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'accepted',
    (error: { code?: unknown; data?: { reason?: unknown; key?: unknown } }) => [error.code, error.data?.reason, error.data?.key],
  );
}

Keys('should refuse a lock with __proto__, constructor or prototype where its keys are fixed :: hostile', () =>
  withProject(async (t) => {
    const lock = join(t.root, 'extensions.lock');
    const entry = `{"version":"1","sha256":"${sha}"}`;
    for (const [text, key] of [
      [`{"extensions": {"__proto__": ${entry}}}`, '__proto__'],
      [`{"extensions": {}, "__proto__": {"extensions": {"acme.x": ${entry}}}}`, '__proto__'],
      [`{"extensions": {"acme.x": {"version":"1","sha256":"${sha}","\\u005f_proto__":{"claims":{}}}}}`, '__proto__'],
      [`{"extensions": {"acme.x": {"version":"1","sha256":"${sha}","constructor":{}}}}`, 'constructor'],
      [`{"extensions": {}, "prototype": 1}`, 'prototype'],
    ] as const) {
      await writeFile(lock, text);
      assert.equal(await refusal(readLock(lock)), [LocalErrorCode.Registry, 'hostile-key', key], text);
    }
  }),
);

Keys('should keep such keys as plain data where keys are data: pinned claims, environment names', () =>
  withProject(async (t) => {
    const lock = join(t.root, 'extensions.lock');
    await writeFile(lock, `{"extensions": {"acme.c": {"version":"1","sha256":"${sha}","claims":{"extension":{"__proto__":{"id":"x"},"prototype":1}}}}}`);
    const read = await readLock(lock);
    assert.equal(Object.keys(read.extensions), ['acme.c']);
    const claims = lockEntryOf(read, parseExtensionId('acme.c'))?.claims as { extension: Record<string, unknown> };
    assert.equal(Object.keys(claims.extension), ['__proto__', 'prototype'], 'kept as own members');
    assert.is(Object.getPrototypeOf(claims.extension), Object.prototype, 'no prototype was set');

    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.env', capabilities: backend('x'), manifest: { env: { constructor: 'c' } } });
    const path = join(pkg, 'extension.json');
    await writeFile(path, (await readFile(path, 'utf8')).replace('"constructor": "c"', '"constructor": "c", "__proto__": "p"'));
    const manifest = await readManifest(pkg);
    assert.equal(Object.keys(manifest.env ?? {}).sort(), ['__proto__', 'constructor'].sort());
  }),
);

Keys('should refuse a manifest or a configuration with a hostile key where keys are fixed :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.m', capabilities: backend('x') });
    const path = join(pkg, 'extension.json');
    const good = await readFile(path, 'utf8');
    await writeFile(path, good.replace('"runtime"', '"__proto__": {"runtime": "wasm"}, "runtime"'));
    assert.equal(await refusal(readManifest(pkg)), [LocalErrorCode.Registry, 'hostile-key', '__proto__']);
    await writeFile(path, good.replace('"runtime"', '"permissions": {"constructor": {"secrets": []}}, "runtime"'));
    assert.equal(await refusal(readManifest(pkg)), [LocalErrorCode.Registry, 'hostile-key', 'constructor']);

    const paths = registryPaths({ cwd: t.project, env: { MEP_HOME: t.home } });
    await writeFile(paths.user.config, '{"__proto__": {"secrets": {"acme.m": ["env(\\"TOKEN\\")"]}}}');
    assert.equal(await refusal(approvedSecrets(paths, parseExtensionId('acme.m'))), [LocalErrorCode.Usage, 'hostile-key', '__proto__']);
    await writeFile(paths.user.config, '{"secrets": {"constructor": ["env(\\"TOKEN\\")"]}}');
    assert.equal(await refusal(approvedSecrets(paths, parseExtensionId('acme.m'))), [LocalErrorCode.Usage, 'hostile-key', 'constructor'], 'no id is named so');
    assert.is(thrownCode(() => parseExtensionId('constructor')), LocalErrorCode.Usage);
  }),
);

Keys('should make a hand-added __proto__ in the lock refuse every command that reads it, with the file named :: hostile', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.l', capabilities: backend('x') });
    assert.is(await main(['install', pkg, '--probe'], captureIo(t.project)), 0);
    const lockPath = join(t.project, '.mep/extensions.lock');
    const lock = JSON.parse(await readFile(lockPath, 'utf8'));
    await writeFile(lockPath, JSON.stringify(lock).replace('{"extensions":{', `{"extensions":{"__proto__":{"version":"9","sha256":"${sha}"},`));
    const io = captureIo(t.project);
    assert.is(await main(['list', '--json'], io), 3);
    const error = JSON.parse(io.stdout.join('\n')).error;
    assert.equal([error.code, error.data.reason, error.data.file], ['ERR_REGISTRY', 'hostile-key', lockPath]);
  }),
);

Keys('should install, list and run a package whose files are named __proto__, constructor and toString (keys of the lock\'s files map are data) :: hostile', () =>
  withProject(async (t) => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.names', capabilities: backend('x'), manifest: { files: names } });
    for (const name of names) await writeFile(join(pkg, name), name);
    const install = captureIo(t.project);
    assert.is(await main(['install', pkg], install), 0, install.stderr.join('\n'));
    const pinned = lockEntryOf(await readLock(join(t.project, '.mep/extensions.lock')), parseExtensionId('acme.names'))?.files ?? {};
    assert.equal(Object.keys(pinned).sort(), [...names].sort(), 'each pinned as an own member');
    assert.is(Object.getPrototypeOf(pinned), Object.prototype);
    const list = captureIo(t.project);
    assert.is(await main(['list', '--json'], list), 0, list.stdout.join('\n'));
    assert.ok(list.stdout.join('\n').includes('acme.names'));
    const call = captureIo(t.project);
    assert.is(await main(['trust'], captureIo(t.project)), 0);
    assert.is(await main(['describe', 'acme.names'], call), 0, call.stderr.join('\n'));
  }),
);

Keys('should refuse a manifest or lock that spells one key twice, which a reader of the file sees first and mep took last :: duplicate-key', () =>
  withProject(async (t) => {
    const pkg = await writePackage(join(t.root, 'pkg'), { id: 'acme.twice', capabilities: backend('x') });
    const path = join(pkg, 'extension.json');
    const text = await readFile(path, 'utf8');
    // A reviewer reads "runtime": "wasm" at the top; JSON.parse keeps the last one.
    assert.match(text, /"runtime": "process"/);
    for (const first of ['"runtime": "wasm"', '"r\\u0075ntime": "wasm"']) {
      await writeFile(path, text.replace('{', `{ ${first}, `));
      assert.equal(await refusal(readManifest(pkg)), [LocalErrorCode.Registry, 'duplicate-key', 'runtime'], first);
    }
    const lock = join(t.root, 'extensions.lock');
    await writeFile(lock, `{"extensions": {"acme.x": {"version":"1","sha256":"${sha}"}, "acme.x": {"version":"2","sha256":"${'b'.repeat(64)}"}}}`);
    assert.equal(await refusal(readLock(lock)), [LocalErrorCode.Registry, 'duplicate-key', 'acme.x']);
    // Keys that differ only past an escaped quote or backslash are two keys.
    await writeFile(path, text.replace('{', '{ "env": { "X\\\\": "1", "X\\"": "2", "X\\\\\\"": "3" }, '));
    assert.equal(Object.keys((await readManifest(pkg)).env ?? {}).sort(), ['X\\', 'X"', 'X\\"'].sort());
    // The same key in two objects is no duplicate.
    await writeFile(lock, `{"extensions": {"acme.x": {"version":"1","sha256":"${sha}"}, "acme.y": {"version":"1","sha256":"${sha}"}}}`);
    assert.equal(Object.keys((await readLock(lock)).extensions).sort(), ['acme.x', 'acme.y']);
  }),
);

Keys.run();
