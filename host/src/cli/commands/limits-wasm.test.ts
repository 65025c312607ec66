import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildGuest } from '../../../../build/guest/index.ts';
import { writeFixture } from '../../../../build/guest/testing/fixtures.ts';
import { builtAvro } from '../../../../examples/testing/built.ts';
import { repoRoot, withProject } from '../../registry/test-support.ts';
import type { TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

// The real Avro backend and the bench's echo guest (its answer is the IR re-serialized, so the
// answer is bigger than the request), both built to wasm and cached.
const customerIr = join(repoRoot, 'fixtures/ir/customer/morphir-ir.json');
const showcaseIr = join(repoRoot, 'fixtures/ir/showcase/morphir-ir.json');
let echoBuild: Promise<string> | undefined;
// A backend whose answer is one artifact of `options.size` bytes, held as one string.
const BIG_ANSWER = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'big', name: 'big', version: '0.1.0' },
  backend: { targets: ['big'], irVersions: ['3'], generate: ({ options }) => ({ artifacts: [textArtifact('big.txt', 'x'.repeat(Number(options.size)))] }) },
});
`;
let bigBuild: Promise<string> | undefined;
const bigWasm = (): Promise<string> =>
  (bigBuild ??= buildGuest({ entry: writeFixture('big-answer.ts', BIG_ANSWER), outFile: join(repoRoot, '.cache/examples/big-answer.wasm'), typecheck: false }).then((r) => r.outFile));
// A backend that holds `options.mib` distinct strings of 1 MiB at once: its memory grows step by step.
const HOLD_MEMORY = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'hold', name: 'hold', version: '0.1.0' },
  backend: {
    targets: ['hold'],
    irVersions: ['3'],
    generate: ({ options }) => {
      const held: string[] = [];
      for (let i = 0; i < Number(options.mib); i++) held.push(String(i).padStart(1 << 20, 'x'));
      return { artifacts: [textArtifact('held.txt', String(held.length))] };
    },
  },
});
`;
let holdBuild: Promise<string> | undefined;
const holdWasm = (): Promise<string> =>
  (holdBuild ??= buildGuest({ entry: writeFixture('hold-memory.ts', HOLD_MEMORY), outFile: join(repoRoot, '.cache/examples/hold-memory.wasm'), typecheck: false }).then((r) => r.outFile));
const echoWasm = (): Promise<string> =>
  (echoBuild ??= buildGuest({ entry: join(repoRoot, 'bench/guests/echo-artifact.ts'), outFile: join(repoRoot, '.cache/examples/echo-artifact.wasm') }).then((r) => r.outFile));

interface Run {
  code: number;
  error?: { code: string; message: string; data: Record<string, unknown> };
  stderr: string;
}

async function generate(t: TempProject, args: string[]): Promise<Run> {
  const io = captureIo(t.project);
  const code = await main(['generate', '--output', 'out', '--json', ...args], io);
  const out = io.stdout.join('\n');
  return { code, error: out ? JSON.parse(out).error : undefined, stderr: io.stderr.join('\n') };
}

function assertLimit(run: Run, code: string, limit: string, option: string): void {
  assert.is(run.code, 3, run.stderr);
  assert.is(run.error?.code, code, run.error?.message);
  assert.is(run.error?.data.limit, limit, JSON.stringify(run.error?.data));
  assert.ok(run.error?.message.includes(option), run.error?.message);
  assert.ok(run.error?.message.includes(`"limits": {"${limit === 'maxResponseBytes' || limit === 'maxRequestBytes' ? 'maxMessageBytes' : limit}": `), run.error?.message);
}

const MiB = 1024 * 1024;
const Wasm = suite('cli :: limits of a wasm extension');

Wasm('should stop a guest that exhausts --max-memory with a limit error, not an internal error :: hostile', () =>
  withProject(async (t) => {
    // A valid IR carrying 8 MB of padding the guest must hold while it parses the request.
    const ir = JSON.parse(await readFile(customerIr, 'utf8'));
    await writeFile(join(t.project, 'big.json'), JSON.stringify({ ...ir, padding: 'x'.repeat(8_000_000) }));
    const avro = await builtAvro('wasm');
    const run = await generate(t, ['--extension', avro, '--target', 'avro', '--input', 'big.json', '--max-memory', '8MiB']);
    assertLimit(run, 'ERR_LIMIT', 'maxMemoryBytes', '--max-memory');
    const raised = await generate(t, ['--extension', avro, '--target', 'avro', '--input', 'big.json', '--max-memory', '128MiB']);
    assert.is(raised.code, 0, raised.stderr);
  }),
);

Wasm('should stop a guest at --call-timeout :: hostile', () =>
  withProject(async (t) => {
    // 500 types: a generation that takes the guest tens of milliseconds at least, so a 1 ms
    // deadline always falls inside it (the small customer model can finish within 1 ms).
    const large = join(t.project, 'large.json');
    execFileSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'fixtures/ir/generate-large.ts'), '--modules', '20', '--types-per-module', '25', '--out', large], { cwd: repoRoot, stdio: 'ignore' });
    const run = await generate(t, ['--extension', await builtAvro('wasm'), '--target', 'avro', '--input', large, '--option', 'dependencies=shared', '--call-timeout', '1ms']);
    assertLimit(run, 'ERR_TIMEOUT', 'callTimeoutMs', '--call-timeout');
  }),
);

Wasm('should refuse an answer over --max-message, and a request over it :: hostile', () =>
  withProject(async (t) => {
    const ir = JSON.stringify(JSON.parse(await readFile(showcaseIr, 'utf8')));
    const escaped = JSON.stringify(ir).length;
    assert.ok(escaped > ir.length + 1024, 'the echoed answer is larger than the request');
    const limit = String(ir.length + 512);
    const answer = await generate(t, ['--extension', await echoWasm(), '--target', 'echo', '--input', showcaseIr, '--max-message', limit]);
    assertLimit(answer, 'ERR_LIMIT', 'maxResponseBytes', '--max-message');
    const request = await generate(t, ['--extension', await echoWasm(), '--target', 'echo', '--input', showcaseIr, '--max-message', '4KiB']);
    assertLimit(request, 'ERR_LIMIT', 'maxRequestBytes', '--max-message');
  }),
);

Wasm('should name memory and message size at once for an answer that ran out of memory while written, and one retry is enough', () =>
  withProject(async (t) => {
    // 20 MB of text at a 32 MiB cap: the string fits, writing the answer's JSON does not, and
    // the answer is over the 8 MiB message limit too.
    const args = ['--extension', await bigWasm(), '--target', 'big', '--input', customerIr, '--option', 'size=20000000'];
    const run = await generate(t, [...args, '--max-memory', '32MiB', '--max-message', '8MiB']);
    assertLimit(run, 'ERR_LIMIT', 'maxMemoryBytes', '--max-memory');
    assert.equal(run.error?.data.limits, ['maxMemoryBytes', 'maxMessageBytes']);
    assert.ok((run.error?.data.answerBytesAtLeast as number) >= 20_000_000);
    const suggested = /with (--max-memory \S+) (--max-message \S+) on/.exec(run.error?.message ?? '');
    assert.ok(suggested, run.error?.message);
    const retry = await generate(t, [...args, ...(suggested[1] as string).split(' '), ...(suggested[2] as string).split(' ')]);
    assert.is(retry.code, 0, retry.stderr);
  }),
);

Wasm('should size the raise for an out-of-memory from what the call measured, and say how to measure its peak in one run', () =>
  withProject(async (t) => {
    const args = ['--extension', await holdWasm(), '--target', 'hold', '--input', customerIr, '--option', 'mib=40'];
    const run = await generate(t, [...args, '--max-memory', '16MiB']);
    assertLimit(run, 'ERR_LIMIT', 'maxMemoryBytes', '--max-memory');
    const message = run.error?.message ?? '';
    // What the runtime measured: the memory when the call began and at the failure (its peak).
    const { memoryBytes: peak, callStartMemoryBytes: start } = run.error?.data as { memoryBytes: number; callStartMemoryBytes: number };
    assert.ok(start > 0 && start < peak && peak <= 16 * MiB, JSON.stringify(run.error?.data));
    assert.ok(message.includes(`took its memory from ${(start / MiB).toFixed(1)} MiB to ${(peak / MiB).toFixed(1)} MiB`), message);
    // The figure leaves room for the call to take as much again, not a blind doubling.
    const suggested = Number(/--max-memory (\d+)MiB on/.exec(message)?.[1]) * MiB;
    assert.ok(suggested >= peak + (peak - start), message);
    // How to find the figure in one run, as said: the peak it prints is enough.
    assert.match(message, /run it once with --max-memory 1GiB --verbose/);
    const measured = await generate(t, [...args, '--max-memory', '1GiB', '--verbose']);
    assert.is(measured.code, 0, measured.stderr);
    const needs = Number(/guest memory: peak ([\d.]+) MiB/.exec(measured.stderr)?.[1]);
    assert.ok(needs > 40, measured.stderr);
    const fits = await generate(t, [...args, '--max-memory', `${Math.ceil(needs) + 1}MiB`]);
    assert.is(fits.code, 0, fits.stderr);
  }),
);

Wasm('should apply the manifest limits of an installed wasm extension, and let flags win :: precedence', () =>
  withProject(async (t) => {
    const pkg = join(t.root, 'avro-pkg');
    await mkdir(pkg);
    await copyFile(await builtAvro('wasm'), join(pkg, 'avro.wasm'));
    const manifest = { id: 'morphir-avro-ts', name: 'Avro', version: '0.1.0', runtime: 'wasm', entry: 'avro.wasm', limits: { maxMessageBytes: 4096 } };
    await writeFile(join(pkg, 'extension.json'), JSON.stringify(manifest));
    const io = captureIo(t.project);
    assert.is(await main(['install', pkg], io), 0, io.stderr.join('\n'));
    const refused = await generate(t, ['--target', 'avro', '--input', showcaseIr]);
    assertLimit(refused, 'ERR_LIMIT', 'maxRequestBytes', '--max-message');
    const raised = await generate(t, ['--target', 'avro', '--input', showcaseIr, '--max-message', '1MiB', '--option', 'unsupported=warn-and-skip']);
    assert.is(raised.code, 0, raised.stderr);
  }),
);

Wasm.run();
