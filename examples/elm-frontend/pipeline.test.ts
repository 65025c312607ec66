/**
 * The whole pipeline in the sandbox, as a user runs it: an Elm project → `mep compile` with the
 * Elm frontend built to wasm → `mep generate --target avro` with the Avro backend built to wasm
 * → `.avsc` files that avsc and Apache Avro (Python) parse. Both extensions run from `.wasm`
 * files only: neither can read a file, so no installed morphir-elm takes part.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import avsc from 'avsc';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { parseWithApacheAvro } from '../avro/src/apache-avro.ts';
import { builtExample, REPO_ROOT } from '../testing/built.ts';

const run = promisify(execFile);
const MEP = join(REPO_ROOT, 'bin', 'mep.mjs');

async function mep(cwd: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(process.execPath, [MEP, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr, code } = error as { stdout?: string; stderr?: string; code?: number };
    throw new Error(`mep ${args.join(' ')} exited ${code}:\n${stderr}\n${stdout}`);
  }
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(relative(dir, join(entry.parentPath, entry.name)));
  return out.sort();
}

const Pipeline = suite('Elm → Morphir IR → Avro, both extensions sandboxed');

Pipeline('should import nothing but the Extism kernel in either module (no file system, no morphir-elm)', async () => {
  for (const example of ['elm-frontend', 'avro']) {
    const module = await WebAssembly.compile(await readFile(await builtExample(example, 'wasm')));
    const namespaces = [...new Set(WebAssembly.Module.imports(module).map((i) => i.module))];
    assert.equal(namespaces, ['extism:host/env'], example);
  }
});

Pipeline('should pass the MEP 0.1 conformance suite as a wasm module', async () => {
  const { stdout } = await mep(REPO_ROOT, 'conformance', await builtExample('elm-frontend', 'wasm'));
  assert.match(stdout, /\n\d+ passed, 0 failed/);
});

Pipeline('should answer a source nested deeper than the sandbox\'s stack with a diagnostic, and compile on', async () => {
  const session = createSession({ transport: await openTransport(specFromPath(await builtExample('elm-frontend', 'wasm'))) });
  const request = (body: string) => ({ languageId: 'elm', sources: { documents: [{ uri: 'file:///w/Deep.elm', languageId: 'elm', version: 1, text: `module Deep exposing (x)\n\nx : Int\nx =\n    ${body}\n` }] }, package: { name: 'local/example' } });
  try {
    await session.start();
    const deep = await session.compile(request(`${'('.repeat(5000)}1${')'.repeat(5000)}`));
    assert.equal([deep.success, deep.diagnostics.map((d) => d.code)], [false, ['elm.compiler']]);
    const next = await session.compile(request('1'));
    assert.ok(next.success, JSON.stringify(next.diagnostics));
    assert.equal(next.modules, ['Deep']);
  } finally {
    await session.close();
  }
});

Pipeline('should compile the showcase project and generate Avro that avsc and Apache Avro parse', async () => {
  const root = await mkdtemp(join(tmpdir(), 'mep-elm-pipeline-'));
  try {
    const project = join(root, 'showcase');
    await cp(join(REPO_ROOT, 'fixtures/ir/showcase'), project, { recursive: true, filter: (s) => !s.endsWith('morphir-ir.json') });
    const [elm, avro] = await Promise.all([builtExample('elm-frontend', 'wasm'), builtExample('avro', 'wasm')]);
    const compiled = await mep(root, 'compile', 'showcase', '--extension', elm);
    assert.match(compiled.stdout, /Compiled .*showcase \(elm\) with morphir-elm-frontend: 3 modules, IR 3, written to /);
    const generated = await mep(root, 'generate', '--target', 'avro', '--input', 'showcase/morphir-ir.json', '--output', 'avro', '--extension', avro, '--option', 'unsupported=warn-and-skip');
    assert.match(generated.stdout, /^Generated \d+ artifacts/);
    const written = await files(join(root, 'avro'));
    const schemas = written.filter((p) => p.endsWith('.avsc'));
    assert.ok(schemas.length >= 5, written.join(', '));
    const artifacts = await Promise.all(schemas.map(async (path) => ({ path, content: await readFile(join(root, 'avro', path), 'utf8') })));
    for (const a of artifacts) avsc.Type.forSchema(JSON.parse(a.content) as never);
    const verdict = parseWithApacheAvro(artifacts);
    assert.equal(verdict.failures, []);

    // The same Avro as from the IR morphir-elm wrote for the project.
    await mep(root, 'generate', '--target', 'avro', '--input', join(REPO_ROOT, 'fixtures/ir/showcase/morphir-ir.json'), '--output', 'reference', '--extension', avro, '--option', 'unsupported=warn-and-skip');
    assert.equal(await files(join(root, 'reference')), written);
    for (const path of written) assert.is(await readFile(join(root, 'avro', path), 'utf8'), await readFile(join(root, 'reference', path), 'utf8'), path);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

Pipeline.run();
