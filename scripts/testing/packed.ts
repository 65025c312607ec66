/**
 * The packed mep-runtime as a user gets it, made once per test run and shared by the tests that
 * use it (scripts/package.test.ts, scripts/newcomer.test.ts): `npm pack` of this checkout (which
 * runs `npm run build`) into a temp directory, and an empty project `app/` that installed the
 * tarball. The directory is removed when the test process exits.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a shell command line in `cwd` with npm kept offline-first and quiet. */
export function sh(line: string, cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
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
    execFile('sh', ['-c', line], { cwd, env: merged, maxBuffer: 64 << 20, timeout: 300_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr });
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
