import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatFixture } from '../../fixtures/wasm/compile.ts';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { REPO_ROOT, builtAvro } from '../testing/built.ts';

const customerIr = async () => JSON.parse(await readFile(join(REPO_ROOT, 'fixtures/ir/customer/morphir-ir.json'), 'utf8'));

const Wasm = suite('avro :: sandboxed session');

Wasm('should deliver progress and log notifications to the host before the response', async () => {
  const session = createSession({ transport: await openTransport(specFromPath(await builtAvro('wasm'))) });
  const events: string[] = [];
  session.onProgress((p) => events.push(`progress:${p.kind}`));
  session.onLog((l) => events.push(`log:${l.level}:${l.message}`));
  try {
    await session.start();
    const result = await session.generate({ ir: await customerIr(), target: 'avro' }, { id: 'gen-1' });
    events.push('response');
    assert.is(result.success, true);
    // Reports per type between begin and end (how many depends on the IR), then the summary log.
    assert.ok(events.includes('progress:report'), events.join(', '));
    assert.equal(events.filter((e) => e !== 'progress:report'), ['progress:begin', `log:info:avro: ${result.artifacts.length} artifact(s), 0 error(s), 0 other diagnostic(s)`, 'progress:end', 'response']);
    assert.ok(events.lastIndexOf('progress:report') < events.indexOf('progress:end'));
  } finally {
    await session.close();
  }
});

Wasm('should list the written files in the order the backend returned them with mep generate --json (the shared layout\'s load order)', async () => {
  const out = await mkdtemp(join(tmpdir(), 'mep-avro-order-'));
  try {
    const io = captureIo(REPO_ROOT);
    const args = ['generate', '--extension', await builtAvro('wasm'), '--target', 'avro', '--input', 'fixtures/ir/shop/morphir-ir.json', '--output', out, '--option', 'dependencies=shared', '--json'];
    assert.is(await main(args, io), 0, io.stderr.join('\n'));
    const report = JSON.parse(io.stdout.join('\n'));
    const index = JSON.parse(await readFile(join(out, 'load-order.json'), 'utf8'));
    // shop/billing.avsc uses the catalog's and the customers' types: it comes after them, not in name order.
    assert.equal(report.written, [...index.schemas, 'load-order.json']);
    assert.ok(report.written.indexOf('shop/catalog.avsc') < report.written.indexOf('shop/billing.avsc'));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

Wasm('should print the claim set of a wasm extension with mep describe', async () => {
  const io = captureIo(REPO_ROOT);
  assert.is(await main(['describe', await builtAvro('wasm')], io), 0, io.stderr.join('\n'));
  const claims = JSON.parse(io.stdout.join('\n'));
  assert.is(claims.extension.id, 'morphir-avro-ts');
  assert.equal(claims.capabilities.backend.targets, ['avro']);
});

Wasm('should fail mep describe with a typed timeout, on its own, for a guest that never answers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-loop-'));
  try {
    // A hand-written guest that spins forever and never polls mep_interrupt: only the worker
    // isolation can stop it.
    const loop = join(dir, 'loop.wasm');
    await writeFile(loop, loadWatFixture('loop'));
    const io = captureIo(dir);
    const guard = new Promise<number>((resolve) => setTimeout(() => resolve(-1), 20_000));
    const code = await Promise.race([main(['describe', loop, '--timeout', '300', '--json'], io), guard]);
    assert.is(code, 3, `exit ${code}: ${io.stderr.join('\n')}`);
    assert.is(JSON.parse(io.stdout.join('\n')).error.code, 'ERR_TIMEOUT');
    assert.is(await main(['describe', loop, '--timeout', 'soon'], captureIo(dir)), 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Wasm.run();
