/**
 * The packed mep-runtime as a user gets it, made once per test run and shared by the tests that
 * use it (scripts/package.test.ts, scripts/newcomer.test.ts): `npm pack` of this checkout (which
 * runs `npm run build`) into a temp directory, and an empty project `app/` that installed the
 * tarball. The directory is removed when the test process exits.
 */
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signalGroup } from '../../host/src/transport/process-group.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link sh}. */
export interface ShOptions {
  /** How long the step may run (default 300 s); then it and everything it started are killed. */
  timeoutMs?: number;
}

const MAX_OUTPUT = 64 << 20;

/**
 * Runs a shell command line in `cwd` with npm kept offline-first and quiet. The shell leads a
 * process group of its own: a step that runs over its time is killed with everything it started
 * (npm, node, a server it spawned), so no orphan outlives the test; its stderr then says so.
 */
export function sh(line: string, cwd: string, env: NodeJS.ProcessEnv = {}, options: ShOptions = {}): Promise<Ran> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...env,
  };
  // A loader or option of this test process (tsx) must not leak into the user's processes.
  delete merged.NODE_OPTIONS;
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', line], { cwd, env: merged, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    let ended = '';
    const killGroup = (why: string): void => {
      if (ended !== '') return;
      ended = why;
      signalGroup(child.pid as number, 'SIGKILL');
    };
    const take = (into: Buffer[]) => (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > MAX_OUTPUT) killGroup(`wrote more than ${MAX_OUTPUT} bytes of output`);
      else into.push(chunk);
    };
    child.stdout.on('data', take(out));
    child.stderr.on('data', take(err));
    const timer = setTimeout(() => killGroup(`timed out after ${timeoutMs} ms`), timeoutMs);
    // The test process ending (a failed assertion, Ctrl+C) ends the step's group too.
    const onExit = (): void => killGroup('the test process ended');
    process.once('exit', onExit);
    child.once('error', (e) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      resolve({ code: 1, stdout: '', stderr: String(e) });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      process.off('exit', onExit);
      // Whatever the shell left running in its group goes with it.
      if (ended === '') signalGroup(child.pid as number, 'SIGKILL');
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code: ended !== '' ? 124 : (code ?? 1),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: ended === '' ? stderr : `${stderr}${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}sh: '${line}' ${ended}; its process group was killed\n`,
      });
    });
  });
}

/** Runs `line` and asserts it exits 0, returning its stdout. */
export async function ok(line: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await sh(line, cwd, env);
  assert.is(r.code, 0, `'${line}' in ${cwd} failed (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

export interface Packed {
  /** The temp directory holding the tarball and `app/`. */
  dir: string;
  /** The tarball's absolute path. */
  tarball: string;
  /** The paths `npm pack` put in it. */
  files: string[];
  /** A project (package.json only) that ran `npm install <tarball>`. */
  app: string;
}

let packing: Promise<Packed> | undefined;

/** The packed tarball and the project that installed it: made on the first call, then reused. */
export function packedRuntime(): Promise<Packed> {
  packing ??= pack();
  return packing;
}

async function pack(): Promise<Packed> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-pack-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  // prepack (npm run build) prints its summary before npm's JSON.
  const out = await ok(`npm pack --silent --json --pack-destination ${JSON.stringify(dir)}`, ROOT);
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as { filename: string; files: { path: string }[] }[];
  const tarball = join(dir, packed[0]?.filename as string);
  const app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`);
  await ok(`npm install ${JSON.stringify(tarball)}`, app);
  return { dir, tarball, files: packed[0]?.files.map((f) => f.path) ?? [], app };
}
