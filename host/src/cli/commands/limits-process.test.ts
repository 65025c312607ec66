import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { backend, repoRoot, withProject, writePackage } from '../../registry/test-support.ts';
import type { TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';
import { postRpc } from '../../serve/testing/http.ts';
import { startServe } from '../testing/serve-in-process.ts';

// A process backend (fixtures/extensions/configurable.mjs) whose generate misbehaves on request:
// options sleepMs, allocateMb and padBytes.
const ir = join(repoRoot, 'fixtures/mep/ir/business-terms.json');

async function install(t: TempProject, id: string, manifest: Record<string, unknown> = {}): Promise<number> {
  const io = captureIo(t.project);
  return main(['install', await writePackage(join(t.root, 'src', id), { id, capabilities: backend('echo'), manifest })], io);
}

/** Runs `mep generate … --json` and returns the exit code, the JSON error (if any) and stderr. */
async function generate(t: TempProject, ...extra: string[]): Promise<{ code: number; error?: { code: string; message: string; data: Record<string, unknown> }; stderr: string }> {
  const io = captureIo(t.project);
  const code = await main(['generate', '--target', 'echo', '--input', ir, '--output', 'out', '--json', ...extra], io);
  const out = io.stdout.join('\n');
  return { code, error: out ? JSON.parse(out).error : undefined, stderr: io.stderr.join('\n') };
}

function assertNamesKnob(message: string, option: string, field: string): void {
  assert.ok(message.includes(option), `names ${option}: ${message}`);
  assert.ok(message.includes(`"limits": {"${field}": `), `names ${field}: ${message}`);
}

const Limits = suite('cli :: limits of a process extension');

Limits('should refuse an answer over the manifest message limit, and let --max-message raise it :: precedence', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.small', { limits: { maxMessageBytes: 4096 } }), 0);
    const refused = await generate(t, '--option', 'padBytes=8192');
    assert.is(refused.code, 3);
    assert.is(refused.error?.code, 'ERR_LIMIT');
    assert.equal([refused.error?.data.limit, refused.error?.data.limitBytes], ['maxMessageBytes', 4096]);
    // The answer's measured size is a little over 8 KiB: the power of two above it, not 2 x 4 KiB.
    assert.ok((refused.error?.data.size as number) > 8192, JSON.stringify(refused.error?.data));
    assertNamesKnob(refused.error?.message ?? '', '--max-message 16KiB', 'maxMessageBytes');
    assert.not.ok(existsSync(join(t.project, 'out')), 'nothing written');

    // One retry with the value the message suggested is enough.
    const raised = await generate(t, '--option', 'padBytes=8192', '--max-message', '16KiB');
    assert.is(raised.code, 0, raised.stderr);
  }),
);

Limits('should refuse a request over --max-message before sending it :: hostile', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.echo'), 0);
    const refused = await generate(t, '--max-message', '1KiB');
    assert.is(refused.code, 3);
    assert.is(refused.error?.code, 'ERR_LIMIT');
    assert.equal([refused.error?.data.direction, refused.error?.data.limit], ['request', 'maxMessageBytes']);
    assertNamesKnob(refused.error?.message ?? '', '--max-message', 'maxMessageBytes');
  }),
);

Limits('should stop waiting at the call timeout, from the manifest or the command line :: precedence', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.slow', { limits: { callTimeoutMs: 200 } }), 0);
    const late = await generate(t, '--option', 'sleepMs=1500');
    assert.is(late.code, 3);
    assert.is(late.error?.code, 'ERR_TIMEOUT');
    assert.is(late.error?.data.limit, 'callTimeoutMs');
    assertNamesKnob(late.error?.message ?? '', '--call-timeout 400ms', 'callTimeoutMs');

    const patient = await generate(t, '--option', 'sleepMs=1500', '--call-timeout', '20s');
    assert.is(patient.code, 0, patient.stderr);
  }),
);

Limits('should report a Node script that exhausts --max-memory as a limit :: hostile', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.hog'), 0);
    const hog = await generate(t, '--option', 'allocateMb=2000', '--max-memory', '32MiB', '--call-timeout', '60s');
    assert.is(hog.code, 3);
    assert.is(hog.error?.code, 'ERR_LIMIT');
    assert.is(hog.error?.data.limit, 'maxMemoryBytes');
    assertNamesKnob(hog.error?.message ?? '', '--max-memory', 'maxMemoryBytes');
  }),
);

Limits('should answer a served HTTP call that exhausts --max-memory with ERR_LIMIT (200, the client\'s id), and serve the next call :: hostile', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.hog'), 0);
    const serve = await startServe(['--http', '127.0.0.1:0', '--max-memory', '32MiB', '--call-timeout', '60s'], t.project);
    try {
      const url = `${serve.address}/extensions/acme.hog`;
      const call = (id: number, options: Record<string, unknown>) => postRpc(url, { jsonrpc: '2.0', id, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] }, target: 'echo', options } });
      const hog = await call(0, { allocateMb: 2000 });
      assert.is(hog.status, 200);
      assert.is(hog.body.id, 0);
      const error = hog.body.error as { code: number; data: { localCode: string; limit: string } };
      assert.is(error.code, -32010, JSON.stringify(hog.body));
      assert.equal([error.data.localCode, error.data.limit], ['ERR_LIMIT', 'maxMemoryBytes']);
      const next = await call(1, {});
      assert.ok((next.body.result as { success: boolean }).success, JSON.stringify(next.body));
    } finally {
      await serve.stop();
    }
  }),
);

Limits('should print the extension process’s own peak memory with --verbose, as a wasm guest’s', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.echo'), 0);
    const peak = async (...extra: string[]): Promise<number> => {
      const run = await generate(t, '--verbose', ...extra);
      assert.is(run.code, 0, run.stderr);
      const line = /process memory: peak ([\d.]+) MiB resident, ([\d.]+) MiB address space/.exec(run.stderr);
      assert.ok(line, run.stderr);
      return Number(line![1]);
    };
    const idle = await peak();
    // Node.js itself holds tens of MiB: the launcher that contains it (a shell) would be a few.
    assert.ok(idle > 20, `the extension's own figure, not its launcher's: ${idle} MiB`);
    const holding = await peak('--option', 'allocateMb=16');
    assert.ok(holding > idle + 16, `what the call held shows: ${holding} MiB against ${idle} MiB`);
  }),
);

Limits('should refuse bad limit values: a usage error for flags, an install error for the manifest :: hostile', () =>
  withProject(async (t) => {
    assert.is(await install(t, 'acme.echo'), 0);
    for (const [flag, value, expected] of [
      ['--max-memory', 'lots', /--max-memory expects a size/],
      ['--call-timeout', '30', /--call-timeout .*add a unit/],
      ['--max-message', '2GiB', /--max-message must be between/],
    ] as const) {
      const io = captureIo(t.project);
      assert.is(await main(['generate', '--target', 'echo', '--input', ir, '--output', 'out', flag, value], io), 2);
      assert.match(io.stderr.join('\n'), expected);
    }
    const io = captureIo(t.project);
    const pkg = await writePackage(join(t.root, 'src', 'acme.bad'), { id: 'acme.bad', capabilities: backend('echo'), manifest: { limits: { maxMemoryBytes: '1GiB' } } });
    assert.is(await main(['install', pkg], io), 3);
    assert.match(io.stderr.join('\n'), /limits\.maxMemoryBytes/);
    const unknown = captureIo(t.project);
    const other = await writePackage(join(t.root, 'src', 'acme.cpu'), { id: 'acme.cpu', capabilities: backend('echo'), manifest: { limits: { maxCpu: 2 } } });
    assert.is(await main(['install', other], unknown), 3);
    assert.match(unknown.stderr.join('\n'), /limits/);
  }),
);

Limits('should accept the limit flags on describe, conformance and serve, and list them in help', async () => {
  for (const command of ['generate', 'compile', 'validate', 'transform', 'describe', 'conformance', 'serve']) {
    const io = captureIo();
    assert.is(await main([command, '--help'], io), 0);
    for (const flag of ['--max-memory', '--call-timeout', '--max-message']) assert.ok(io.stdout.join('\n').includes(flag), `${command} --help lists ${flag}`);
  }
  const io = captureIo();
  assert.is(await main(['describe', join(repoRoot, 'fixtures/extensions/well-behaved.mjs'), '--call-timeout', '5s', '--max-memory', '128MiB', '--max-message', '1MiB'], io), 0, io.stderr.join('\n'));
  assert.ok(JSON.parse(io.stdout.join('\n')).extension);
  const bad = captureIo();
  assert.is(await main(['conformance', join(repoRoot, 'fixtures/extensions/well-behaved.mjs'), '--max-memory', '-5'], bad), 2);
});

Limits.run();
