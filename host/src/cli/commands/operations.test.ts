import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backend, repoRoot, writePackage, withProject } from '../../registry/test-support.ts';
import type { TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const ir = join(repoRoot, 'fixtures/mep/ir/business-terms.json');
const SECRET = 'tok-9f8e7d6c5b4a';
const frontend = { frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersions: ['3'], compile: true, incremental: false } };


async function install(t: TempProject, id: string, capabilities: Record<string, unknown>, extra: { secrets?: string[] } = {}): Promise<void> {
  const io = captureIo(t.project);
  assert.is(await main(['install', await writePackage(join(t.root, 'src', id), { id, capabilities, ...extra })], io), 0, io.stderr.join('\n'));
}

const Ops = suite('cli :: provider selection and operations');

Ops('should stage streamed artifacts as they arrive and publish them with the result\'s, all or none', () =>
  withProject(async (t) => {
    await install(t, 'acme.stream', backend('echo'));
    const run = async (out: string, ...options: string[]) => {
      const io = captureIo(t.project);
      const code = await main(['generate', '--target', 'echo', '--input', ir, '--output', out, '--json', ...options.flatMap((o) => ['--option', o])], io);
      return { code, report: JSON.parse(io.stdout.join('\n')) };
    };
    const ok = await run('out', 'stream=["b/2.txt","a/1.txt"]');
    assert.is(ok.code, 0, JSON.stringify(ok.report));
    // Streamed first, in the order they came, then the result's own.
    assert.equal(ok.report.written, ['b/2.txt', 'a/1.txt', 'out/echo.json']);
    assert.is(await readFile(join(t.project, 'out', 'b', '2.txt'), 'utf8'), 'streamed b/2.txt\n');
    // Hostile: an unsafe streamed path, a repeated one, a count that disagrees, a failed result.
    for (const [options, code] of [
      [['stream=["x/ok.txt","../escape.txt"]'], 'ERR_ARTIFACT'],
      [['stream=["x/ok.txt","X/OK.txt"]'], 'ERR_ARTIFACT'],
      [['stream=["x/ok.txt"]', 'claim=2'], 'ERR_PROTOCOL'],
    ] as const) {
      const failed = await run('bad', ...options);
      assert.is.not(failed.code, 0);
      assert.is(failed.report.error.code, code, JSON.stringify(failed.report));
    }
    const refused = await run('bad', 'stream=["x/ok.txt"]', 'fail=true');
    assert.is(refused.report.success, false);
    assert.equal(refused.report.written, []);
    const left = await readdir(t.project);
    assert.not.ok(left.includes('bad'), `nothing published: ${left.join(', ')}`);
    assert.not.ok(left.some((name) => name.startsWith('.mep-staging-')), 'no staging directory left');
  }),
);

Ops('should generate with the provider selected by target, in human and JSON form', () =>
  withProject(async (t) => {
    await install(t, 'acme.echo', backend('echo'));
    await install(t, 'acme.other', backend('other'));
    const io = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'echo', '--input', ir, '--output', 'out'], io), 0, io.stderr.join('\n'));
    assert.match(io.stdout[0] as string, /^Generated 1 artifact .* with acme\.echo:$/);
    const json = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'other', '--input', ir, '--output', 'out2', '--json'], json), 0);
    const report = JSON.parse(json.stdout.join('\n'));
    assert.equal([report.success, report.extension, report.written], [true, 'acme.other', ['out/other.json']]);
  }),
);

Ops('should fail ambiguous and missing providers with exit 3 in both forms, and accept --extension <id>', () =>
  withProject(async (t) => {
    await install(t, 'acme.one', backend('avro'));
    await install(t, 'acme.two', backend('avro'));
    const human = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'avro', '--input', ir, '--output', 'out'], human), 3);
    assert.match(human.stderr.join('\n'), /Ambiguous provider.*acme\.one.*acme\.two/);
    const json = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'avro', '--input', ir, '--output', 'out', '--json'], json), 3);
    assert.is(JSON.parse(json.stdout.join('\n')).error.data.reason, 'ambiguous-provider');
    const picked = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'avro', '--input', ir, '--output', 'out', '--extension', 'acme.two', '--json'], picked), 0);
    assert.is(JSON.parse(picked.stdout.join('\n')).extension, 'acme.two');

    const missing = captureIo(t.project);
    assert.is(await main(['validate', '--input', ir, '--json'], missing), 3);
    const error = JSON.parse(missing.stdout.join('\n')).error;
    assert.equal([error.code, error.data.reason], ['ERR_REGISTRY', 'no-provider']);
    assert.match(missing.stderr.join('\n'), /Looked in .*\.mep\/extensions.*mep install/);
    assert.not.ok((await readdir(t.project)).includes('out-missing'));
  }),
);

Ops('should refuse a tampered provider before starting it', () =>
  withProject(async (t) => {
    await install(t, 'acme.echo', backend('echo'));
    await writeFile(join(t.project, '.mep/extensions/acme.echo/bin/ext.mjs'), 'throw new Error("evil")');
    const io = captureIo(t.project);
    assert.is(await main(['generate', '--target', 'echo', '--input', ir, '--output', 'out', '--json'], io), 3);
    const error = JSON.parse(io.stdout.join('\n')).error;
    assert.equal([error.data.reason, error.data.file], ['hash-mismatch', join(t.project, '.mep/extensions/acme.echo/bin/ext.mjs')]);
  }),
);

Ops('should compile by file extension and render diagnostics with the source line and a caret', () =>
  withProject(async (t) => {
    await install(t, 'acme.elm', frontend);
    await writeFile(join(t.project, 'Bad.elm'), 'module Bad exposing (x)\nx = oops\n');
    const human = captureIo(t.project);
    assert.is(await main(['compile', 'Bad.elm'], human), 1);
    const err = human.stderr.join('\n');
    assert.match(err, /^error\[fixture\.oops\]: found oops$/m);
    // Below the working directory, the file is shown relative to it, like a compiler does.
    assert.match(err, /--> Bad\.elm:2:5$/m);
    assert.match(err, /2 \| x = oops\n {2}\| {5}\^\^\^\^/);
    const json = captureIo(t.project);
    assert.is(await main(['compile', 'Bad.elm', '--json'], json), 1);
    const result = JSON.parse(json.stdout.join('\n'));
    assert.equal([result.success, result.languageId, result.diagnostics[0].code], [false, 'elm', 'fixture.oops']);

    await writeFile(join(t.project, 'Good.elm'), 'module Good exposing (x)\nx = 1\n');
    const ok = captureIo(t.project);
    assert.is(await main(['compile', 'Good.elm', '--output', 'ir.json'], ok), 0, ok.stderr.join('\n'));
    const written = JSON.parse(await readFile(join(t.project, 'ir.json'), 'utf8'));
    assert.equal([written.formatVersion, written.languageId], [3, 'elm']);
    assert.is(await main(['compile', 'Good.txt'], captureIo(t.project)), 2);
  }),
);

Ops('should validate and transform with providers chosen by IR version', () =>
  withProject(async (t) => {
    await install(t, 'acme.check', { validator: { irVersions: ['3'], validate: true } });
    await install(t, 'acme.rewrite', { transform: { irVersions: ['3'], transform: true } });
    const valid = captureIo(t.project);
    assert.is(await main(['validate', '--input', ir], valid), 0, valid.stderr.join('\n'));
    const invalidIr = join(t.project, 'invalid.json');
    await writeFile(invalidIr, JSON.stringify({ ...JSON.parse(await readFile(ir, 'utf8')), invalid: true }));
    const invalid = captureIo(t.project);
    assert.is(await main(['validate', '--input', invalidIr, '--json'], invalid), 1);
    assert.is(JSON.parse(invalid.stdout.join('\n')).diagnostics[0].code, 'fixture.invalid');

    const transformed = captureIo(t.project);
    assert.is(await main(['transform', '--input', ir, '--output', 'out/ir.json', '--json'], transformed), 0, transformed.stderr.join('\n'));
    assert.is(JSON.parse(transformed.stdout.join('\n')).extension, 'acme.rewrite');
    assert.is(JSON.parse(await readFile(join(t.project, 'out/ir.json'), 'utf8')).transformedBy, 'acme.rewrite');
  }),
);

Ops('should deny a secret the configuration does not approve, with -32012 naming the reference', () =>
  withProject(async (t) => {
    process.env.MEP_TEST_SECRET = SECRET;
    try {
      await install(t, 'acme.crm', backend('crm'), { secrets: ['env("MEP_TEST_SECRET")'] });
      const io = captureIo(t.project);
      assert.is(await main(['generate', '--target', 'crm', '--input', ir, '--output', 'out', '--option', 'secret=env("MEP_TEST_SECRET")', '--json'], io), 0);
      const report = JSON.parse(io.stdout.join('\n'));
      assert.match(report.diagnostics[0].message, /denied with -32012/);
      assert.match(io.stderr.join('\n'), /denied secret\.resolve env\("MEP_TEST_SECRET"\) for acme\.crm/);
      const unlisted = captureIo(t.project);
      await main(['generate', '--target', 'crm', '--input', ir, '--output', 'out', '--option', 'secret=env("HOME")', '--json'], unlisted);
      assert.match(unlisted.stderr.join('\n'), /does not list it/);
    } finally {
      delete process.env.MEP_TEST_SECRET;
    }
  }),
);

Ops('should grant an approved secret and keep its value out of logs, diagnostics and the transcript', () =>
  withProject(async (t) => {
    process.env.MEP_TEST_SECRET = SECRET;
    try {
      await install(t, 'acme.crm', frontend, { secrets: ['env("MEP_TEST_SECRET")'] });
      await mkdir(join(t.project, '.mep'), { recursive: true });
      await writeFile(join(t.project, '.mep/config.json'), JSON.stringify({ secrets: { 'acme.crm': ['env("MEP_TEST_SECRET")'] } }));
      assert.is(await main(['trust'], captureIo(t.project)), 0);
      const source = 'module Main exposing (x)\nx = "visible only to the extension"\n';
      await writeFile(join(t.project, 'Main.elm'), source);
      const transcript = join(t.project, 'run.jsonl');
      for (const json of [false, true]) {
        const io = captureIo(t.project);
        const args = ['compile', 'Main.elm', '--output', 'ir.json', '--option', 'secret=env("MEP_TEST_SECRET")', '--verbose', '--transcript', transcript, ...(json ? ['--json'] : [])];
        assert.is(await main(args, io), 0, io.stderr.join('\n'));
        const everything = [...io.stdout, ...io.stderr].join('\n');
        assert.match(everything, /leaking \[redacted secret\]/);
        assert.match(io.stderr.join('\n'), /\[redacted secret\]/); // the extension's stderr and morphir.log, scrubbed
        assert.not.ok(everything.includes(SECRET));
      }
      const lines = (await readFile(transcript, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
      const text = JSON.stringify(lines);
      assert.not.ok(text.includes(SECRET));
      assert.not.ok(text.includes('visible only to the extension'));
      assert.ok(lines.every((l) => typeof l.time === 'string' && ['host->extension', 'extension->host'].includes(l.direction)));
      const methods = lines.map((l) => l.message.method).filter(Boolean);
      for (const m of ['morphir.initialize', 'secret.resolve', 'morphir.frontend.compile', 'morphir.shutdown', 'morphir.exit']) assert.ok(methods.includes(m), m);
      const answer = lines.find((l) => l.direction === 'host->extension' && typeof l.message.id === 'string' && 'result' in l.message);
      assert.is(answer?.message.result, '[redacted secret]');

      const unredacted = captureIo(t.project);
      assert.is(await main(['compile', 'Main.elm', '--output', 'ir.json', '--option', 'secret=env("MEP_TEST_SECRET")', '--transcript', transcript, '--transcript-unredacted'], unredacted), 0);
      const raw = await readFile(transcript, 'utf8');
      assert.ok(raw.includes('visible only to the extension'));
      assert.not.ok(raw.includes(SECRET));
    } finally {
      delete process.env.MEP_TEST_SECRET;
    }
  }),
);

Ops.run();
