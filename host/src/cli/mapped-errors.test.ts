// Guest stacks in the author's sources, end to end: a project with a dependency in node_modules
// is built to wasm and to a process script by `mep build`, and its throws (sync, async, inside
// the dependency, at load) reach the library, `mep generate` and `mep serve` as file:line(:col)
// of its own files.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { buildBothRuntimes } from '../../../build/guest/testing/build-both.ts';
import { isMepError, LocalErrorCode } from '../protocol/errors.ts';
import { HOST_BOUNDS } from '../protocol/limits.ts';
import { openTransport, specFromPath } from '../registry/launch.ts';
import { ServeMethod } from '../serve/methods.ts';
import { connectServed } from '../serve/testing/connect.ts';
import { createSession } from '../session/session.ts';
import type { StackFrame } from '../transport/source-map/stack.ts';
import { captureIo } from './io.ts';
import { main } from './main.ts';

const DEEP = `// Three calls deep, as in the issue.
export function level1(n: number): number {
  return level2(n + 1);
}

function level2(n: number): number {
  return level3(n * 2);
}

function level3(n: number): number {
  if (n > 0) {
    // the throw is on line 13
    throw new Error('boom');
  }
  return n;
}
`;

const DEP = `export function check(value) {
  if (value === 'bad') {
    throw new TypeError('dep refused ' + value);
  }
  return value;
}
`;

const EXTENSION = (atLoad: boolean) => `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
import { check } from 'dep';
import { level1 } from './lib/deep.ts';

${atLoad ? "check('bad');\n" : ''}
export default defineExtension({
  info: { id: 'deep', name: 'deep', version: '0.1.0' },
  backend: {
    targets: ['deep'],
    irVersions: ['3'],
    async generate({ options }) {
      if (options.how === 'async') await Promise.resolve();
      if (options.how === 'dep') check('bad');
      level1(1);
      return { artifacts: [textArtifact('a.txt', 'a')] };
    },
  },
});
`;

const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const dir = mkdtempSync(join(tmpdir(), 'mep-mapped-'));

function project(name: string, atLoad = false): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(join(root, 'node_modules', 'dep', 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', type: 'module', main: 'index.js' }));
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), DEP);
  writeFileSync(join(root, 'src', 'lib', 'deep.ts'), DEEP);
  writeFileSync(join(root, 'src', 'extension.ts'), EXTENSION(atLoad));
  return root;
}

const root = project('deep');
const built = { wasm: join(root, 'dist', 'deep.wasm'), process: join(root, 'dist', 'deep.mjs') };

async function failure(artifact: string, how: string): Promise<Record<string, unknown>> {
  const session = createSession({ transport: await openTransport(specFromPath(artifact)) });
  try {
    await session.start();
    await session.generate({ ir, target: 'deep', options: { how } });
  } catch (error) {
    assert.ok(isMepError(error), String(error));
    assert.is(error.code, -32603);
    return error.data as Record<string, unknown>;
  } finally {
    await session.close();
  }
  throw new Error('generate did not fail');
}

/** A frame at `file:line`, with a column where the engine reports one (process: always). */
function at(frame: unknown, file: string, line: number, runtime: string): void {
  const f = frame as StackFrame;
  assert.is(f.file, file);
  assert.is(f.line, line);
  if (runtime === 'process') assert.type(f.column, 'number');
}

const Mapped = suite('mep build + host :: guest stacks mapped to the sources');

Mapped.before(() => buildBothRuntimes(join(root, 'src', 'extension.ts'), built, root));
Mapped.after(() => rmSync(dir, { recursive: true, force: true }));

for (const runtime of ['wasm', 'process'] as const) {
  Mapped(`should name the throw in src/lib/deep.ts, sync and async :: ${runtime}`, async () => {
    for (const how of ['sync', 'async']) {
      const data = await failure(built[runtime], how);
      at(data.origin, 'src/lib/deep.ts', 13, runtime);
      const frames = data.frames as StackFrame[];
      const ours = frames.filter((f) => f.mapped && !f.ignored).map((f) => `${f.file}:${f.line}`);
      assert.equal(ours.slice(0, 4), ['src/lib/deep.ts:13', 'src/lib/deep.ts:7', 'src/lib/deep.ts:3', 'src/extension.ts:14'], `${how}: ${JSON.stringify(frames)}`);
      assert.match(data.stack as string, /src\/lib\/deep\.ts:13/);
      assert.not.match(data.stack as string, /guest\.js|dist\/deep\.mjs/);
      assert.type(data.guestStack, 'string');
    }
  });

  Mapped(`should name a dependency by its node_modules path and the author's call as the origin :: ${runtime}`, async () => {
    const data = await failure(built[runtime], 'dep');
    const frames = data.frames as StackFrame[];
    assert.is(frames[0]?.file, 'node_modules/dep/index.js');
    assert.is(frames[0]?.line, 3);
    assert.is(frames[0]?.ignored, true);
    at(data.origin, 'src/extension.ts', 13, runtime);
  });
}

Mapped('should report a throw unmapped, with a note, when the map is larger than the host decodes :: hostile', async () => {
  // A map of more than maxSourceMapBytes: as the first mep.sourcemap section of the module, and
  // as the .map beside a process script. Decoded whole, 4 MB of such a map cost the host 941 MB.
  const hostile = `{"version":3,"file":"guest.js","sources":["a.ts"],"mappings":"${';'.repeat(HOST_BOUNDS.maxSourceMapBytes)}"}`;
  const name = new TextEncoder().encode('mep.sourcemap');
  const payload = new TextEncoder().encode(hostile);
  const leb = (n: number): number[] => (n < 128 ? [n] : [(n & 0x7f) | 0x80, ...leb(Math.floor(n / 128))]);
  const header = [0x00, ...leb(1 + name.length + payload.length), name.length, ...name];
  const wasm = readFileSync(built.wasm);
  const bigWasm = join(root, 'dist', 'big-map.wasm');
  writeFileSync(bigWasm, Buffer.concat([wasm.subarray(0, 8), Buffer.from(header), payload, wasm.subarray(8)]));
  const bigScript = join(root, 'dist', 'big-map.mjs');
  copyFileSync(built.process, bigScript);
  writeFileSync(`${bigScript}.map`, hostile);
  for (const artifact of [bigWasm, bigScript]) {
    const data = await failure(artifact, 'sync');
    assert.match(String(data.sourceMap), /maxSourceMapBytes/, artifact);
    assert.is(data.origin, undefined);
    assert.match(String(data.stack), /boom|guest\.js|big-map/);
  }
});

Mapped('should print the first frame in the author code by default and the whole stack with --verbose and --json :: mep generate', async () => {
  writeFileSync(join(root, 'ir.json'), JSON.stringify(ir));
  for (const runtime of ['wasm', 'process'] as const) {
    const args = ['generate', '--target', 'deep', '--input', 'ir.json', '--output', 'out', '--extension', built[runtime], '--option', 'how=sync'];
    const plain = captureIo(root);
    assert.is(await main(args, plain), 3);
    assert.match(plain.stderr[1] as string, /^ {2}at level3 \(src\/lib\/deep\.ts:13(:\d+)?\)$/, plain.stderr.join('\n'));
    const verbose = captureIo(root);
    assert.is(await main([...args, '--verbose'], verbose), 3);
    const text = verbose.stderr.join('\n');
    assert.match(text, /at level2 \(src\/lib\/deep\.ts:7/);
    assert.match(text, /at level1 \(src\/lib\/deep\.ts:3/);
    const json = captureIo(root);
    assert.is(await main([...args, '--json'], json), 3);
    const error = JSON.parse(json.stdout.join('\n')).error as { data: { frames: StackFrame[]; origin: StackFrame } };
    assert.is(error.data.origin.file, 'src/lib/deep.ts');
    assert.ok(error.data.frames.length >= 4);
  }
});

Mapped('should carry the mapped stack in error.data of session/call :: mep serve', async () => {
  const { client, end } = connectServed();
  try {
    for (const runtime of ['wasm', 'process'] as const) {
      const opened = await client.request(`open-${runtime}`, ServeMethod.Open, { extension: built[runtime] });
      const sessionId = (opened.result as { sessionId: string }).sessionId;
      const response = await client.request(`call-${runtime}`, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'deep', options: { how: 'async' } } });
      const error = response.error as { code: number; data: { origin: StackFrame } };
      assert.is(error.code, -32603);
      at(error.data.origin, 'src/lib/deep.ts', 13, runtime);
      await client.request(`close-${runtime}`, ServeMethod.Close, { sessionId });
    }
  } finally {
    await end();
  }
});

Mapped('should map a throw at load: a build diagnostic in wasm, the crash of the process', async () => {
  const loading = project('at-load', true);
  const entry = join(loading, 'src', 'extension.ts');
  try {
    await buildGuest({ entry, outFile: join(loading, 'dist', 'x.wasm'), cwd: loading, typecheck: false });
    assert.unreachable('a top-level throw fails the wasm build');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Build);
    const data = error.data as { diagnostics: { file: string; line: number }[]; origin: StackFrame; frames: StackFrame[] };
    assert.equal([data.diagnostics[0]?.file, data.diagnostics[0]?.line], ['src/extension.ts', 5]);
    assert.is(data.origin.file, 'src/extension.ts');
    assert.is(data.frames[0]?.file, 'node_modules/dep/index.js');
  }
  const script = join(loading, 'dist', 'x.mjs');
  await buildGuest({ entry, outFile: script, runtime: 'process', cwd: loading, typecheck: false });
  const session = createSession({ transport: await openTransport(specFromPath(script)) });
  try {
    await session.start();
    assert.unreachable('the process dies at load');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.ExtensionCrashed);
    const data = error.data as { origin: StackFrame; exception: string; stderr: string[] };
    at(data.origin, 'src/extension.ts', 5, 'process');
    assert.match(data.exception, /TypeError: dep refused bad/);
    assert.ok(data.stderr.some((line) => /at check\w* \(node_modules\/dep\/index\.js:3:\d+\)/.test(line)), data.stderr.join('\n'));
  } finally {
    await session.close();
  }
  const io = captureIo(loading);
  assert.is(await main(['describe', script], io), 3);
  assert.equal(io.stderr.slice(1, 3).map((l) => l.replace(/:\d+$/, '')), ['  TypeError: dep refused bad', '  at src/extension.ts:5']);
});

Mapped.run();
