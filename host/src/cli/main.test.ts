import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { commands } from './commands/index.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = (name: string) => join(root, 'fixtures/extensions', `${name}.mjs`);
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

const Cli = suite('cli :: mep');

Cli('should print help and exit 0 from the real binary', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'bin/mep.mjs'), '--help'], { cwd: root });
  assert.match(stdout, /conformance/);
  assert.match(stdout, /Exit codes/);
});

Cli('should print the version of package.json for --version and -v', async () => {
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const io = captureIo(root);
    assert.is(await main([flag], io), 0);
    assert.equal(io.stdout, [`mep-runtime ${version}`]);
  }
});

Cli('should list each command with the summary its module declares, and load it only when run', async () => {
  for (const [name, entry] of Object.entries(commands)) {
    assert.is((await entry.load()).summary, entry.summary, name);
    const io = captureIo(root);
    assert.is(await main([name, '--help'], io), 0);
    assert.match(io.stdout.join('\n'), /^Usage: mep /);
  }
  // Names from Object.prototype are not commands.
  for (const name of ['toString', 'constructor', '__proto__']) assert.is(await main([name], captureIo(root)), 2, name);
});

Cli('should exit 2 for an unknown command or a missing argument', async () => {
  const io = captureIo(root);
  assert.is(await main(['frobnicate'], io), 2);
  assert.match(io.stderr.join('\n'), /unknown command 'frobnicate'/);
  const io2 = captureIo(root);
  assert.is(await main(['describe'], io2), 2);
  assert.is(await main(['describe', 'no/such/file.wasm'], captureIo(root)), 2);
});

Cli('should run conformance against the well-behaved fixture and end with the summary line', async () => {
  const io = captureIo(root);
  assert.is(await main(['conformance', fixture('well-behaved')], io), 0);
  // Skipped: the cases of operations the fixture does not advertise (validate, transform, compile).
  assert.match(io.stdout.at(-1) as string, /^\d+ passed, 0 failed, 7 skipped$/);
  assert.ok(io.stdout.some((l) => l.startsWith('pass  initialization: initialize with a string id')));
});

Cli('should exit 1 and name the failing case for a hostile extension', async () => {
  const io = captureIo(root);
  assert.is(await main(['conformance', fixture('wrong-id'), '--filter', 'initialize with a'], io), 1);
  assert.ok(io.stdout.some((l) => l.startsWith('FAIL  initialization: initialize with a string id')), io.stdout.join('\n'));
  assert.match(io.stdout.at(-1) as string, /^1 passed, 1 failed$/);
});

Cli('should say once, with exit 2, that an extension cannot be started', async () => {
  const io = captureIo(root);
  assert.is(await main(['conformance', join(root, 'package.json')], io), 2);
  assert.equal(io.stdout, []);
  assert.match(io.stderr.join('\n'), /not executable/);
});

Cli('should describe a process extension as a draft.2 claim set', async () => {
  const io = captureIo(root);
  assert.is(await main(['describe', fixture('well-behaved')], io), 0);
  const claims = JSON.parse(io.stdout.join('\n'));
  assert.is(claims.claimsVersion, '0.1.0-draft.2');
  assert.ok(Array.isArray(claims.extension.types));
});

Cli('should generate through a process backend, writing all artifacts or none', async () => {
  const out = await mkdtemp(join(tmpdir(), 'mep-cli-'));
  try {
    const io = captureIo(root);
    const code = await main(['generate', '--extension', fixture('well-behaved'), '--target', 'echo', '--input', ir, '--output', out, '--json'], io);
    assert.is(code, 0, io.stderr.join('\n'));
    const report = JSON.parse(io.stdout.join('\n'));
    assert.is(report.success, true);
    assert.ok(report.written.length > 0);
    assert.equal((await readdir(out, { recursive: true })).length > 0, true);

    const io2 = captureIo(root);
    const refused = await main(['generate', '--extension', fixture('well-behaved'), '--target', 'protobuf', '--input', ir, '--output', join(out, 'second')], io2);
    assert.is(refused, 3);
    assert.match(io2.stderr.join('\n'), /does not advertise/);
    assert.not.ok((await readdir(out)).includes('second'));
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

Cli('should refuse input that is not Morphir IR before starting anything', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-cli-'));
  try {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{"not":"ir"');
    const io = captureIo(root);
    assert.is(await main(['generate', '--extension', fixture('well-behaved'), '--target', 'echo', '--input', bad, '--output', join(dir, 'o')], io), 2);
    assert.match(io.stderr.join('\n'), /not valid JSON/);
    assert.is(await main(['generate', '--target', 'echo'], captureIo(root)), 2);
    assert.is(await main(['generate', '--extension', fixture('well-behaved'), '--target', 'echo', '--input', bad, '--output', dir, '--option', 'novalue'], captureIo(root)), 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Cli.run();
