/**
 * The long form of `host/src/serve/http-bodies.test.ts`: `mep serve --http` (its own process,
 * default limits) sent `clients` concurrent generate calls the extension answers after 20 s, each a 64 MiB body
 * mostly of empty objects (an option `pad: [{},{},…]`, 1.4 GB of heap once parsed). Reports whether the server still answers
 * `/health` afterwards, and its peak RSS.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MB = 1024 * 1024;

/** What a run of {@link runHttpBodyBomb} saw. */
export interface HttpBodyBombReport {
  /** The server answered /health after every client was answered or refused. */
  alive: boolean;
  peakRss: number;
  /** HTTP status per client, 0 when its connection failed. */
  statuses: number[];
  exitCode: number | null;
}

function post(port: number, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * Starts `mep serve --http` on a free port with `bin` (this checkout's `bin/mep.mjs` unless
 * given: pass another checkout's to see the attack before a fix) and sends the bodies.
 *
 * @example
 * const report = await runHttpBodyBomb({ clients: 6 });
 * const tighter = await runHttpBodyBomb({ clients: 6, args: ['--max-bodies', '64MiB'] });
 */
export async function runHttpBodyBomb(options: { clients: number; bin?: string; args?: readonly string[] }): Promise<HttpBodyBombReport> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = spawn(process.execPath, [options.bin ?? join(root, 'bin/mep.mjs'), 'serve', '--http', `127.0.0.1:${port}`, '--extension', join(root, 'fixtures/extensions/well-behaved.mjs'), '--verbose', ...(options.args ?? [])], { stdio: ['ignore', 'ignore', 'pipe'] });
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) => server.on('exit', (code, signal) => ((exitCode = code ?? (signal ? 128 : null)), resolve())));
  server.stderr?.resume();
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, 1024 * Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? 0));
    } catch {
      // Exited between two samples.
    }
  }, 50);
  try {
    const health = async (): Promise<boolean> => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
    for (let i = 0; i < 200 && !(await health()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    // A generate the extension answers after 20 s: the host holds each parsed body for the call.
    const ir = readFileSync(join(root, 'fixtures/mep/ir/business-terms.json'), 'utf8');
    const head = `{"jsonrpc":"2.0","id":1,"method":"morphir.backend.generate","params":{"ir":${ir},"target":"echo","options":{"delayMs":20000,"pad":[`;
    const count = Math.floor((64 * MB - 4096 - head.length) / 3);
    const body = Buffer.from(`${head}${'{},'.repeat(count - 1)}{}]}}}`);
    const statuses = await Promise.all(Array.from({ length: options.clients }, () => post(port, body)));
    const alive = exitCode === null && (await health());
    return { alive, peakRss: peak, statuses, exitCode };
  } finally {
    clearInterval(sampler);
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    if (exitCode === null) server.kill('SIGKILL');
  }
}

/** One line for a report. */
export const describeHttpBodyBomb = (r: HttpBodyBombReport): string =>
  `${r.alive ? 'alive' : `dead (exit ${String(r.exitCode)})`} after ${r.statuses.length} concurrent 64 MiB bodies; statuses ${r.statuses.join(',')}; peak RSS ${(r.peakRss / MB).toFixed(0)} MB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `… http-bodies.ts [BIN] [-- FLAG…]`: flags after `--` go to mep serve (e.g. --max-bodies 64MiB).
  const dash = process.argv.indexOf('--');
  const bin = dash === 2 ? undefined : process.argv[2];
  const args = dash < 0 ? [] : process.argv.slice(dash + 1);
  const report = await runHttpBodyBomb({ clients: 6, args, ...(bin ? { bin } : {}) });
  console.log(describeHttpBodyBomb(report));
}
