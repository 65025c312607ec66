import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { settledForExit, type ExitState } from './settled-exit.ts';

const dir = mkdtempSync(join(tmpdir(), 'mep-settled-exit-'));
/** The module as JavaScript, so that children run it in a plain node as `mep` runs from dist/ (tsx keeps a pipe and a port of its own). */
const exitModule = join(dir, 'settled-exit.mjs');
await build({ entryPoints: [fileURLToPath(new URL('./settled-exit.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile: exitModule, logLevel: 'silent' });
/** A child's first line: the module imported, and the loader's own file closes (`CloseReq`) let finish. */
const prelude = `const { exitWhenSettled } = await import(${JSON.stringify(pathToFileURL(exitModule).href)}); while (process.getActiveResourcesInfo().some((r) => r !== 'PipeWrap' && r !== 'TTYWrap')) await new Promise((r) => setTimeout(r, 5));`;

/** Runs `script` (an ES module) in a fresh node; its stdout is a pipe read here. */
function runNode(script: string): Promise<{ code: number | string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 64 << 20, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { killed?: boolean }).killed ? 'hung' : ((error as { code?: number | string }).code ?? 1)) : 0, stdout, stderr });
    });
  });
}

const pipe = (): Socket => new Socket();
const state = (over: Partial<ExitState>): ExitState => ({ resources: [], streams: [pipe(), pipe()], beforeExitListeners: 0, ...over });

test('should call a process settled with nothing but its standard streams left, each on a pipe or terminal with nothing queued', () => {
  assert.ok(settledForExit(state({})));
  assert.ok(settledForExit(state({ resources: ['PipeWrap', 'TTYWrap'] })));
  // stdout on a file (a synchronous stream, no handle), stderr on a pipe.
  assert.ok(settledForExit(state({ resources: ['PipeWrap'], streams: [new PassThrough(), pipe()] })));
});

test('should not call it settled while anything else keeps it alive or a stream holds bytes', () => {
  for (const resources of [['FSReqCallback'], ['FSReqPromise'], ['FileHandle'], ['ProcessWrap'], ['PipeWrap', 'ProcessWrap'], ['Timeout'], ['MessagePort'], ['Worker'], ['TCPSocketWrap']]) {
    assert.not.ok(settledForExit(state({ resources })), resources.join(', '));
  }
  // A third pipe (stdin opened, a child's pipe) beside stdout and stderr; a pipe when both streams are files.
  assert.not.ok(settledForExit(state({ resources: ['PipeWrap', 'PipeWrap', 'PipeWrap'] })));
  assert.not.ok(settledForExit(state({ resources: ['PipeWrap'], streams: [new PassThrough(), new PassThrough()] })));
  const queued = new PassThrough({ highWaterMark: 1 });
  queued.write('bytes not yet taken');
  assert.not.ok(settledForExit(state({ streams: [queued, pipe()] })));
  assert.not.ok(settledForExit(state({ beforeExitListeners: 1 })));
});

test('should end the process at once when settled, with its exit code, its exit listeners run and its output written', async () => {
  const run = await runNode(`${prelude} process.stdout.write('x'.repeat(1000)); process.on('exit', () => console.log('exit listener ran')); exitWhenSettled(3); console.log('still running');`);
  assert.equal({ code: run.code, stdout: run.stdout }, { code: 3, stdout: `${'x'.repeat(1000)}exit listener ran\n` }, run.stderr);
});

test('should leave bytes still queued on stdout (a full pipe) to the natural exit, which writes them all', async () => {
  const run = await runNode(`${prelude} process.stdout.write('x'.repeat(4 << 20)); exitWhenSettled(0); console.log('left to the natural exit');`);
  const tail = run.stdout.replace(/^x*/, '');
  assert.equal({ code: run.code, xs: run.stdout.length - tail.length, tail }, { code: 0, xs: 4 << 20, tail: 'left to the natural exit\n' }, run.stderr);
});

test('should leave a file write under way to finish: the file is whole when the process has ended', async () => {
  const file = join(dir, 'out.bin');
  const run = await runNode(`${prelude} const { writeFile } = await import('node:fs/promises'); void writeFile(${JSON.stringify(file)}, Buffer.alloc(32 << 20, 7)); exitWhenSettled(0); console.log('left to the natural exit');`);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, 'left to the natural exit\n');
  assert.is(readFileSync(file).length, 32 << 20);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
