/**
 * `mep generate` interrupted with SIGINT, as a real child process, against an extension built
 * from one source to both runtimes: the first Ctrl+C becomes $/cancelRequest and the extension's
 * own -32800 is awaited within the grace period, then the session ends in order; an extension
 * still busy at the end of the grace, or a second Ctrl+C, ends it at once. Nothing is written.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCancellable } from '../../../fixtures/testing/cancellable.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { childProcesses, isAlive } from '../serve/testing/processes.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

interface Run {
  code: number | null;
  stderr: string;
  /** The messages of the transcript: [direction, message]. */
  messages: [string, { id?: unknown; method?: string; error?: { code: number } }][];
  /** Ms from the first SIGINT to the end of `mep`. */
  afterInterrupt: number;
  /** The child processes `mep` had when it was interrupted. */
  children: number[];
}

async function interrupted(dir: string, extension: string, options: { extra?: string[]; signals?: number } = {}): Promise<Run> {
  const transcript = join(dir, 'transcript.jsonl');
  const child = spawn(
    process.execPath,
    [join(root, 'bin/mep.mjs'), 'generate', '--extension', extension, '--target', 'spin', '--input', ir, '--output', join(dir, 'out'), '--transcript', transcript, ...(options.extra ?? [])],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Interrupt once the handler runs: the transcript shows its `begin`.
  for (let i = 0; i < 1200; i++) {
    const text = await readFile(transcript, 'utf8').catch(() => '');
    if (text.includes('"kind":"begin"')) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const children = childProcesses(child.pid!).map((c) => c.pid);
  const at = performance.now();
  child.kill('SIGINT');
  for (let i = 1; i < (options.signals ?? 1); i++) {
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
  }
  const code = await closed;
  const afterInterrupt = performance.now() - at;
  const messages = (await readFile(transcript, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .map((e) => [e.direction, e.message] as Run['messages'][number]);
  return { code, stderr, messages, afterInterrupt, children };
}

const sent = (run: Run) => run.messages.filter(([d]) => d === 'host->extension').map(([, m]) => m.method ?? 'response');
const answerOfGenerate = (run: Run) => {
  const id = run.messages.find(([d, m]) => d === 'host->extension' && m.method === 'morphir.backend.generate')?.[1].id;
  return run.messages.find(([d, m]) => d === 'extension->host' && m.id === id && m.method === undefined)?.[1];
};

const Grace = suite('cli :: Ctrl+C with a grace period');

for (const runtime of ['process', 'wasm'] as const) {
  Grace(`should cancel a running ${runtime} extension, get its -32800 within the grace, then shut it down in order`, () =>
    withTempDir('mep-grace-', async (dir) => {
      const built = await buildCancellable();
      const run = await interrupted(dir, runtime === 'wasm' ? built.wasm : built.mjs);
      assert.is(run.code, 3, run.stderr);
      const methods = sent(run);
      const cancel = methods.indexOf('$/cancelRequest');
      assert.ok(cancel > methods.indexOf('morphir.backend.generate'), JSON.stringify(methods));
      assert.equal(methods.slice(cancel + 1), ['morphir.shutdown', 'morphir.exit']);
      if (runtime === 'process') assert.is(answerOfGenerate(run)?.error?.code, -32800, JSON.stringify(run.messages.slice(-6)));
      assert.not.match(run.stderr, /did not stop within/);
      assert.not.ok((await readdir(dir)).includes('out'));
    }),
  );
}

Grace('should end a process extension that does not stop within --cancel-grace, and leave nothing running', () =>
  withTempDir('mep-grace-', async (dir) => {
    const { mjs } = await buildCancellable();
    const run = await interrupted(dir, mjs, { extra: ['--option', 'poll=false', '--option', 'iterations=1e12', '--cancel-grace', '300'] });
    assert.is(run.code, 3, run.stderr);
    assert.match(run.stderr, /did not stop within 300 ms of the cancellation; it was ended/);
    assert.not.ok(sent(run).includes('morphir.shutdown'), 'no orderly shutdown of an extension that was ended');
    assert.ok(run.children.length > 0 && !run.children.some(isAlive), 'the extension process is gone');
    assert.not.ok((await readdir(dir)).includes('out'));
  }),
);

Grace('should end the extension at once on a second Ctrl+C, without waiting out the grace', () =>
  withTempDir('mep-grace-', async (dir) => {
    const { mjs } = await buildCancellable();
    const run = await interrupted(dir, mjs, { extra: ['--option', 'poll=false', '--option', 'iterations=1e12', '--cancel-grace', '600000'], signals: 2 });
    assert.is(run.code, 3, run.stderr);
    // Far below the ten-minute grace: the second Ctrl+C did not wait for it.
    assert.ok(run.afterInterrupt < 60_000, `mep ended ${run.afterInterrupt.toFixed(0)} ms after the first Ctrl+C`);
    assert.ok(run.children.length > 0 && !run.children.some(isAlive), 'the extension process is gone');
  }),
);

Grace('should refuse a --cancel-grace that is not a number of milliseconds', () =>
  withTempDir('mep-grace-', async (dir) => {
    const child = spawn(process.execPath, [join(root, 'bin/mep.mjs'), 'generate', '--target', 'spin', '--input', ir, '--output', join(dir, 'out'), '--cancel-grace', '2s'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.is(code, 2, stderr);
    assert.match(stderr, /--cancel-grace expects a whole number of milliseconds/);
  }),
);

Grace.run();
