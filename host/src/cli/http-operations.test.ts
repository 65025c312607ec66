import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot, tempProject, writePackage, type TempProject } from '../registry/test-support.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';
import { startServe, type ServeInProcess } from './testing/serve-in-process.ts';

/**
 * `mep compile`, `mep validate` and `mep transform` through `--extension http://…` against
 * `mep serve --http` serving an installed extension (the configurable fixture, a frontend, a
 * validator and a transform in one), each compared with the same command run locally on it.
 */
const ID = 'acme.all';
const capabilities = {
  frontend: { languages: [{ id: 'elm', fileExtensions: ['.elm'] }], irVersions: ['3'], compile: true, incremental: false },
  validator: { irVersions: ['3'], validate: true },
  transform: { irVersions: ['3'], transform: true },
};

const fixture: { t?: TempProject; serve?: ServeInProcess } = {};
const t = (): TempProject => fixture.t as TempProject;
const url = (): string => `${(fixture.serve as ServeInProcess).address}/extensions/${ID}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[]): Promise<Run> {
  const io = captureIo(t().project);
  const code = await main(argv, io);
  return { code, stdout: io.stdout.join('\n'), stderr: io.stderr.join('\n') };
}

/**
 * Runs `argv(extension, tag)` locally (the installed id) and over HTTP (its URL): the same exit
 * code and output (`tag` names each run's own output path).
 */
async function sameOverHttp(argv: (extension: string, tag: string) => string[], expectedCode: number): Promise<{ local: Run; remote: Run }> {
  const local = await run(argv(ID, 'local'));
  const remote = await run(argv(url(), 'remote'));
  // The remote run went through the server: it holds the session that answered (pooled, idle).
  const info = (await (await fetch(`${(fixture.serve as ServeInProcess).address}/info`)).json()) as { sessions: number };
  assert.ok(info.sessions > 0, JSON.stringify(info));
  assert.is(local.code, expectedCode, local.stdout + local.stderr);
  assert.is(remote.code, expectedCode, remote.stdout + remote.stderr);
  // Both name the extension by the id it reports (acme.all, not the URL).
  assert.is(remote.stdout.split('remote').join('<tag>'), local.stdout.split('local').join('<tag>'));
  assert.is(remote.stderr, local.stderr);
  return { local, remote };
}

const Ops = suite('mep compile/validate/transform --extension http://… (mep serve --http) answer as run locally');

Ops.before(async () => {
  fixture.t = await tempProject();
  const io = captureIo(t().project);
  assert.is(await main(['install', await writePackage(join(t().root, 'src', ID), { id: ID, capabilities })], io), 0, io.stderr.join('\n'));
  fixture.serve = await startServe(['--http', '127.0.0.1:0'], t().project);
  const ir = JSON.parse(await readFile(join(repoRoot, 'fixtures/mep/ir/business-terms.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(t().project, 'ir.json'), JSON.stringify(ir));
  await writeFile(join(t().project, 'invalid.json'), JSON.stringify({ ...ir, invalid: true }));
  await writeFile(join(t().project, 'Good.elm'), 'module Good exposing (x)\nx = 1\n');
  await writeFile(join(t().project, 'Bad.elm'), 'module Bad exposing (x)\nx = oops\n');
});

const stopServe = async (): Promise<void> => {
  const serve = fixture.serve;
  delete fixture.serve;
  if (serve) assert.is(await serve.stop(), 0);
};

Ops.after(async () => {
  try {
    await stopServe();
  } finally {
    await t().cleanup();
  }
});

Ops('mep compile writes the same IR, and reports the same diagnostics in human and JSON form', async () => {
  await sameOverHttp((extension, tag) => ['compile', 'Good.elm', '--extension', extension, '--output', `${tag}.ir.json`, '--json'], 0);
  const written = await readFile(join(t().project, 'remote.ir.json'), 'utf8');
  assert.is(written, await readFile(join(t().project, 'local.ir.json'), 'utf8'));
  assert.is(JSON.parse(written).languageId, 'elm');

  const json = await sameOverHttp((extension) => ['compile', 'Bad.elm', '--extension', extension, '--json'], 1);
  assert.is(JSON.parse(json.remote.stdout).diagnostics[0].code, 'fixture.oops');
  const human = await sameOverHttp((extension) => ['compile', 'Bad.elm', '--extension', extension], 1);
  assert.match(human.remote.stderr, /--> Bad\.elm:2:5$/m);
  assert.match(human.remote.stderr, /2 \| x = oops\n {2}\| {5}\^\^\^\^/);
});

Ops('mep validate passes a valid IR and reports an invalid one alike', async () => {
  await sameOverHttp((extension) => ['validate', '--input', 'ir.json', '--extension', extension, '--json'], 0);
  const invalid = await sameOverHttp((extension) => ['validate', '--input', 'invalid.json', '--extension', extension, '--json'], 1);
  assert.is(JSON.parse(invalid.remote.stdout).diagnostics[0].code, 'fixture.invalid');
});

Ops('mep transform writes the same transformed IR', async () => {
  await sameOverHttp((extension, tag) => ['transform', '--input', 'ir.json', '--extension', extension, '--output', `${tag}/ir.json`, '--json'], 0);
  const written = await readFile(join(t().project, 'remote/ir.json'), 'utf8');
  assert.is(written, await readFile(join(t().project, 'local/ir.json'), 'utf8'));
  assert.is(JSON.parse(written).transformedBy, ID);
});

Ops('with the server gone, each fails ERR_UNREACHABLE (exit 3) and writes nothing, while the same local run still passes', async () => {
  const gone = url();
  await stopServe();
  const argvs: [string[], string | undefined][] = [
    [['compile', 'Good.elm', '--extension', gone, '--output', 'gone.ir.json', '--json'], 'gone.ir.json'],
    [['validate', '--input', 'ir.json', '--extension', gone, '--json'], undefined],
    [['transform', '--input', 'ir.json', '--extension', gone, '--output', 'gone/ir.json', '--json'], 'gone/ir.json'],
  ];
  for (const [argv, output] of argvs) {
    const failed = await run(argv);
    assert.is(JSON.parse(failed.stdout).error?.code, 'ERR_UNREACHABLE', failed.stdout + failed.stderr);
    assert.is(failed.code, 3, failed.stdout + failed.stderr);
    if (output) assert.is(await readFile(join(t().project, output)).then(() => 'written', () => 'absent'), 'absent', output);
    const local = await run(argv.map((a) => (a === gone ? ID : a)));
    assert.is(local.code, 0, local.stdout + local.stderr);
  }
});

Ops.run();
