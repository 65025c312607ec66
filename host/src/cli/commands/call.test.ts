import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../../build/guest/index.ts';
import { buildBothRuntimes } from '../../../../build/guest/testing/build-both.ts';
import { writeTestExtension } from '../../../../build/guest/testing/fixtures.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

// One extension of every kind (frontend, backend, validator, transform), built to both runtimes.
const ALL_KINDS = `import { defineExtension, diagnostic, textArtifact } from 'mep-runtime/guest-pdk';

const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
export default defineExtension({
  info: { id: 'acme.all', name: 'all kinds', version: '1.2.3' },
  frontend: { languages: [{ id: 'txt', fileExtensions: ['.txt'] }], irVersions: ['3'], compile: () => ({ ir, irVersion: '3', modules: [] }) },
  backend: {
    targets: ['t'],
    irVersions: ['3'],
    generate({ ir, options }, ctx) {
      ctx.progress('begin', 'generating', 10);
      ctx.log('info', 'generate called');
      if (options.fail) return { artifacts: [], diagnostics: [diagnostic('error', 'asked to fail', { code: 'T1' })] };
      return { artifacts: [textArtifact('out.txt', JSON.stringify({ format: (ir as { formatVersion: unknown }).formatVersion, options }))] };
    },
  },
  validator: { irVersions: ['3'], validate: () => ({ diagnostics: [diagnostic('warning', 'looks odd', { code: 'V1' })] }) },
  transform: { irVersions: ['3'], transform: ({ ir }) => ({ ir, irVersion: '3' }) },
});
`;

const dir = mkdtempSync(join(tmpdir(), 'mep-call-'));
writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'all', private: true, type: 'module' }));
mkdirSync(join(dir, 'src'));
writeFileSync(join(dir, 'src', 'all.ts'), ALL_KINDS);
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
writeFileSync(join(dir, 'ir.json'), JSON.stringify(ir));
writeFileSync(join(dir, 'compile.json'), JSON.stringify({ languageId: 'txt', sources: { root: 'file:///w', documents: [{ uri: 'file:///w/a.txt', languageId: 'txt', version: 1, text: 'x' }] }, package: { name: 'p' } }));
const built = { wasm: join(dir, 'all.wasm'), process: join(dir, 'all.mjs') };

async function call(args: string[], stdin?: Uint8Array): Promise<{ code: number; out: string; err: string; bytes: Uint8Array }> {
  const io = captureIo(dir, stdin);
  const code = await main(['call', ...args], io);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n'), bytes: Buffer.concat(io.bytes) };
}

const Call = suite('cli :: mep call');
const Raw = suite('cli :: mep call --raw');
Call.before(() => buildBothRuntimes(join(dir, 'src', 'all.ts'), built, dir));
Raw.after(() => rmSync(dir, { recursive: true, force: true }));

for (const runtime of ['wasm', 'process'] as const) {
  Call(`should call every kind of method and print the result as JSON :: ${runtime}`, async () => {
    const ext = built[runtime];
    const generated = await call([ext, 'generate', '{"options":{"k":1}}', '--ir', 'ir.json']);
    assert.is(generated.code, 0, generated.err);
    assert.equal(JSON.parse(JSON.parse(generated.out).artifacts[0].content), { format: 3, options: { k: 1 } });
    const compiled = await call([ext, 'compile', '@compile.json']);
    assert.is(compiled.code, 0, compiled.err);
    assert.is(JSON.parse(compiled.out).success, true);
    const validated = await call([ext, 'morphir.validator.validate', '--ir', 'ir.json']);
    assert.is(validated.code, 0, 'a warning is not a failure');
    assert.is(JSON.parse(validated.out).diagnostics[0].code, 'V1');
    const transformed = await call([ext, 'transform', '--ir', 'ir.json']);
    assert.equal(JSON.parse(transformed.out).ir, ir);
    assert.is(JSON.parse((await call([ext, 'describe'])).out).extension.id, 'acme.all');
    assert.equal(JSON.parse((await call([ext, 'ping'])).out), { ok: true });
    assert.is(JSON.parse((await call([ext, 'info'])).out).version, '1.2.3');
    assert.equal(JSON.parse((await call([ext, 'capabilities'])).out).backend.targets, ['t']);
  });
}

Call('should exit 1 for a domain failure and 3 for an error answer, with --json on stdout', async () => {
  const failed = await call([built.wasm, 'generate', '--ir', 'ir.json', '--option', 'fail=true']);
  assert.is(failed.code, 1);
  assert.is(JSON.parse(failed.out).success, false);
  const unknown = await call([built.wasm, 'acme.nope', '{}', '--json']);
  assert.is(unknown.code, 3);
  assert.is(JSON.parse(unknown.out).error.code, -32601);
  const limited = await call([built.process, 'generate', '--ir', 'ir.json', '--option', `pad=${'x'.repeat(2000)}`, '--max-message', '1KiB', '--json']);
  assert.is(limited.code, 3);
  assert.is(JSON.parse(limited.out).error.code, 'ERR_LIMIT');
});

Call('should read params from stdin, time --repeat and show logs and progress with --verbose', async () => {
  const fromStdin = await call([built.wasm, 'generate', '@-', '--repeat', '5', '--verbose'], new TextEncoder().encode(JSON.stringify({ ir, target: 't' })));
  assert.is(fromStdin.code, 0, fromStdin.err);
  assert.match(fromStdin.err, /morphir\.backend\.generate: 5 calls, min [\d.]+ ms, median [\d.]+ ms, max [\d.]+ ms/);
  assert.match(fromStdin.err, /\[acme\.all info\] generate called/);
  assert.match(fromStdin.err, /\[progress\] begin 10% generating/);
});

Call('should refuse bad command lines with exit 2 :: hostile', async () => {
  for (const args of [[], [built.wasm], [built.wasm, 'ping', '[1]'], [built.wasm, 'ping', 'not json'], [built.wasm, 'ping', '@missing.json'], [built.wasm, 'ping', '{}', 'extra'], [built.wasm, 'ping', '--repeat', '0'], [built.wasm, 'ping', '--raw', 'handle'], [join(dir, 'nothing.wasm'), 'ping'], [built.process, '--raw', 'handle']]) {
    const r = await call(args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.err}`);
  }
});

Raw('should call any export with bytes in and out: a plain Extism plugin and a mep build module', async () => {
  const echo = join(dir, 'extism-echo.wasm');
  writeFileSync(echo, loadWatFixture('extism-echo'));
  const bytes = Uint8Array.from([0, 1, 2, 250, 255, 10]);
  writeFileSync(join(dir, 'in.bin'), bytes);
  const fromFile = await call([echo, '--raw', 'handle', '--input', 'in.bin']);
  assert.is(fromFile.code, 0, fromFile.err);
  assert.equal([...fromFile.bytes], [...bytes]);
  const fromStdin = await call([echo, '--raw', 'handle', '--repeat', '3'], bytes);
  assert.equal([...fromStdin.bytes], [...bytes]);
  assert.match(fromStdin.err, /handle: 3 calls, min/);
  const info = await call([built.wasm, '--raw', 'morphir_extension_info']);
  assert.is(JSON.parse(new TextDecoder().decode(info.bytes)).id, 'acme.all');
});

Raw('should stop a spinning export at --call-timeout, and map the stack of one that throws :: hostile', async () => {
  const loop = join(dir, 'loop.wasm');
  writeFileSync(loop, loadWatFixture('loop'));
  const spun = await call([loop, '--raw', 'handle', '--call-timeout', '300ms', '--json']);
  assert.is(spun.code, 3);
  assert.is(JSON.parse(spun.out).error.code, 'ERR_TIMEOUT');
  const fixtures = await buildGuest({ entry: writeTestExtension(), outFile: join(dir, 'fixture.wasm'), typecheck: false });
  const thrown = await call([fixtures.outFile, '--raw', 'fail', '--json']);
  assert.is(thrown.code, 3);
  const error = JSON.parse(thrown.out).error as { code: number; data: { origin?: { file: string } } };
  assert.is(error.code, -32010);
  assert.match(error.data.origin?.file ?? '', /test-extension\.ts$/);
  const missing = await call([fixtures.outFile, '--raw', 'nope', '--json']);
  assert.is(missing.code, 2);
  assert.ok(JSON.parse(missing.out).error.data.exports.includes('fail'));
});

Call.run();
Raw.run();
