/**
 * Test and bench support: N `mep serve --http` replicas on loopback behind nginx configured
 * with deploy/nginx.conf (its upstream servers and listen port replaced), and wrk driving
 * generate calls through it with deploy/generate.lua.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../fixtures/testing/ports.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const mep = join(root, 'bin/mep.mjs');
/** The extension every replica serves at `/`. */
export const FIXTURE = join(root, 'fixtures/extensions/well-behaved.mjs');

/** True when nginx and wrk are installed (scripts/setup.sh installs them). */
export function haveTools(): boolean {
  return ['nginx', 'wrk'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool} || test -x /usr/sbin/${tool}`]).status === 0);
}

/** One replica: its port and process. */
export interface Replica {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
}

/** Replicas behind nginx; `url` is nginx's. */
export interface ReplicaSet {
  url: string;
  replicas: Replica[];
  /** nginx's error log so far (retries show up as "upstream prematurely closed" / "connect() failed"). */
  errorLog(): string;
  close(): Promise<void>;
}

/** Starts `mep serve --http 127.0.0.1:0 --extension FIXTURE`; resolves once it listens. */
export function startReplica(args: string[] = []): Promise<Replica> {
  const child = spawn(process.execPath, [mep, 'serve', '--http', '127.0.0.1:0', '--verbose', '--extension', FIXTURE, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (match) resolve({ port: Number(match[1]), child, exited });
    });
    void exited.then(() => reject(new Error(`replica exited: ${stderr}`)));
  });
}

/** deploy/nginx.conf with `ports` as its upstream servers and nginx listening on `listen`, inside a main context of its own. */
export function nginxConfig(ports: number[], listen: number, dir: string): string {
  const snippet = readFileSync(join(root, 'deploy/nginx.conf'), 'utf8')
    .replace(/(?:^[ \t]*server 127\.0\.0\.1:\d+ ([^\n]*)\n)+/m, (_all, options: string) => ports.map((port) => `    server 127.0.0.1:${port} ${options}\n`).join(''))
    .replace(/listen 127\.0\.0\.1:\d+;/, `listen 127.0.0.1:${listen};`);
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${snippet}
}
`;
}

/** Starts `count` replicas and nginx in front of them. */
export async function startReplicaSet(count: number): Promise<ReplicaSet> {
  const dir = mkdtempSync(join(tmpdir(), 'mep-nginx-'));
  const replicas = await Promise.all(Array.from({ length: count }, () => startReplica()));
  const listen = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(replicas.map((r) => r.port), listen, dir));
  const nginx = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin` } });
  const nginxExited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${listen}/`;
  // nginx prints nothing when ready: ask its health route through a replica until it answers.
  for (let attempt = 0; ; attempt++) {
    const ok = await fetch(`${url}health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (nginx.exitCode !== null || attempt > 200) throw new Error(`nginx did not start: ${readFileSync(join(dir, 'error.log'), 'utf8')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    replicas,
    errorLog: () => readFileSync(join(dir, 'error.log'), 'utf8'),
    async close() {
      nginx.kill('SIGTERM');
      for (const replica of replicas) replica.child.kill('SIGTERM');
      await Promise.all([nginxExited, ...replicas.map((r) => r.exited)]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What deploy/generate.lua reports. */
export interface WrkResult {
  requests: number;
  seconds: number;
  p50_us: number;
  p99_us: number;
  non2xx: number;
  socket_errors: number;
  bad_answers: number;
}

/** Runs wrk against `url` for `seconds` with `connections` connections. */
export function runWrk(url: string, seconds: number, connections: number): Promise<WrkResult> {
  return new Promise((resolve, reject) => {
    const wrk = spawn('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', join(root, 'deploy/generate.lua'), url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    wrk.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    wrk.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    wrk.once('exit', () => {
      const match = /WRK_JSON (\{.*\})/.exec(out);
      if (match) resolve(JSON.parse(match[1] as string) as WrkResult);
      else reject(new Error(`wrk printed no result: ${out}`));
    });
  });
}
