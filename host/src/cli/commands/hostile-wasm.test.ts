import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { builtLogFlood } from '../../../../scripts/hostile/built-guests.ts';
import { repoRoot, withProject, type TempProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const ir = join(repoRoot, 'fixtures/mep/ir/business-terms.json');

interface Run {
  code: number;
  error?: { code: string | number; message: string; data: Record<string, unknown> };
  stderr: string;
  elapsedMs: number;
}

/** Runs `mep <args> --json` in-process and reads the error object it printed, if any. */
async function mep(t: TempProject, args: string[]): Promise<Run> {
  const io = captureIo(t.project);
  const started = performance.now();
  const code = await main([...args, '--json'], io);
  const elapsedMs = performance.now() - started;
  const out = io.stdout.join('\n');
  let error: Run['error'];
  try {
    error = (JSON.parse(out) as { error?: Run['error'] }).error;
  } catch {
    error = undefined;
  }
  return { code, error, stderr: io.stderr.join('\n'), elapsedMs };
}

/** `fixtures/wasm/<name>.wat` as a .wasm file in the project. */
async function watFile(t: TempProject, name: string): Promise<string> {
  const path = join(t.project, `${name}.wasm`);
  await writeFile(path, loadWatFixture(name));
  return path;
}

const Start = suite('cli :: a wasm guest whose start function never returns');

const DEADLINE = ['--call-timeout', '500ms'];
const commands: [string, (wasm: string) => string[]][] = [
  ['describe', (wasm) => ['describe', wasm, ...DEADLINE]],
  ['generate', (wasm) => ['generate', '--extension', wasm, '--target', 'x', '--input', ir, '--output', 'out', ...DEADLINE]],
  ['conformance', (wasm) => ['conformance', wasm, ...DEADLINE]],
];

for (const [name, args] of commands) {
  Start(`should fail mep ${name} at the call deadline :: ERR_TIMEOUT`, () =>
    withProject(async (t) => {
      const run = await mep(t, args(await watFile(t, 'start-loop')));
      assert.is(run.code, 3, run.stderr);
      assert.is(run.error?.code, 'ERR_TIMEOUT', JSON.stringify(run.error));
      assert.equal([run.error?.data.limit, run.error?.data.phase], ['callTimeoutMs', 'start']);
      assert.match(run.error?.message ?? '', /--call-timeout/);
      // At the deadline, not some later one (30 s is the default).
      assert.ok(run.elapsedMs < 20_000, `took ${run.elapsedMs.toFixed(0)} ms`);
    }),
  );
}

Start.run();

const Features = suite('cli :: wasm proposals refused before compiling');

for (const [name, args] of [...commands, ['call', (wasm: string) => ['call', wasm, 'ping', ...DEADLINE]] as const]) {
  Features(`should refuse in mep ${name} a guest using atomics, exception handling or tail calls, naming the proposal :: -32012`, () =>
    withProject(async (t) => {
      for (const [fixture, feature] of [['atomic-wait', 'threads'], ['catch-refusal', 'exception-handling'], ['tail-loop', 'tail-call']]) {
        const run = await mep(t, args(await watFile(t, fixture as string)));
        assert.is(run.error?.code, -32012, `${fixture}: ${JSON.stringify(run.error)} ${run.stderr}`);
        assert.equal([run.error?.data.reason, run.error?.data.feature], ['wasm-feature', feature]);
        assert.match(run.error?.message ?? '', /rebuild this one without it/);
        assert.is.not(run.code, 0);
      }
    }),
  );
}

Features.run();

const Size = suite('cli :: --max-module');

Size('should refuse a module over the limit before compiling it, naming the option :: ERR_LIMIT', () =>
  withProject(async (t) => {
    // Junk bytes: compiled, they would be a usage error; the size refusal comes first.
    const junk = join(t.project, 'junk.wasm');
    await writeFile(junk, new Uint8Array(8 * 1024));
    const run = await mep(t, ['describe', junk, '--max-module', '4KiB']);
    assert.is(run.code, 3, run.stderr);
    assert.is(run.error?.code, 'ERR_LIMIT');
    assert.equal([run.error?.data.limit, run.error?.data.size], ['maxModuleBytes', 8 * 1024]);
    assert.match(run.error?.message ?? '', /--max-module 8KiB/);
    const compiled = await mep(t, ['describe', junk]);
    assert.is(compiled.error?.code, 'ERR_USAGE', 'under the default limit the bytes are compiled and found invalid');
  }),
);

Size('should refuse a bad --max-module value as a usage error', () =>
  withProject(async (t) => {
    const run = await mep(t, ['describe', await watFile(t, 'echo'), '--max-module', '12']);
    assert.is(run.code, 2, run.stderr);
  }),
);

Size.run();

const Budget = suite('cli :: --max-notifications');

Budget('should stop a wasm guest logging past its budget, naming the option, and let the option raise it :: ERR_LIMIT', () =>
  withProject(async (t) => {
    const flood = await builtLogFlood();
    const args = ['generate', '--extension', flood, '--target', 'flood', '--input', ir, '--output', 'out', '--option', 'mib=2'];
    const stopped = await mep(t, [...args, '--max-notifications', '1MiB']);
    assert.is(stopped.code, 3, stopped.stderr);
    assert.is(stopped.error?.code, 'ERR_LIMIT');
    assert.is(stopped.error?.data.limit, 'maxNotificationBytes');
    assert.match(stopped.error?.message ?? '', /--max-notifications 2MiB/);
    const raised = await mep(t, [...args, '--max-notifications', '4MiB']);
    assert.is(raised.code, 0, raised.stderr);
    // 2 MiB is well within the default of 64 MiB.
    assert.is((await mep(t, args)).code, 0);
  }),
);

Budget.run();
