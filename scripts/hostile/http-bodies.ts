/**
 * The long form of `host/src/serve/http-bodies.test.ts`: `mep serve --http` (its own process,
 * default limits) sent `clients` concurrent generate calls the extension answers after 20 s, each a 64 MiB body
 * mostly of empty objects (an option `pad: [{},{},…]`, 1.4 GB of heap once parsed). Reports whether the server still answers
 * `/health` afterwards, the longest another client's `/health` waited meanwhile (CPU per body:
 * parsed and written for the extension in slices), and its peak RSS.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServedHttp } from './served-http.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const MB = 1024 * 1024;

/** What a run of {@link runHttpBodyBomb} saw. */
export interface HttpBodyBombReport {
  /** The server answered /health after every client was answered or refused. */
  alive: boolean;
  peakRss: number;
  /** HTTP status per client, 0 when its connection failed. */
  statuses: number[];
  /** The longest a /health request waited for its answer while the bodies were handled, in ms (other clients' wait; a measure, not a bound). */
  longestHealthMs: number;
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
  const server = await startServedHttp(options.bin ?? join(root, 'bin/mep.mjs'), ['--extension', join(root, 'fixtures/extensions/well-behaved.mjs'), '--verbose', ...(options.args ?? [])]);
  const { port } = server;
  try {
    // A generate the extension answers after 20 s: the host holds each parsed body for the call.
    const ir = readFileSync(join(root, 'fixtures/mep/ir/business-terms.json'), 'utf8');
    const head = `{"jsonrpc":"2.0","id":1,"method":"morphir.backend.generate","params":{"ir":${ir},"target":"echo","options":{"delayMs":20000,"pad":[`;
    const count = Math.floor((64 * MB - 4096 - head.length) / 3);
    const body = Buffer.from(`${head}${'{},'.repeat(count - 1)}{}]}}}`);
    // Another client asks /health one request after another while the bodies are handled.
    let handled = false;
    let longestHealthMs = 0;
    const probing = (async () => {
      while (!handled) {
        const started = performance.now();
        await server.health();
        longestHealthMs = Math.max(longestHealthMs, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const statuses = await Promise.all(Array.from({ length: options.clients }, () => post(port, body)));
    handled = true;
    await probing;
    const alive = server.exitCode() === null && (await server.health());
    return { alive, peakRss: server.peakRss(), statuses, longestHealthMs, exitCode: server.exitCode() };
  } finally {
    await server.stop();
  }
}

/** One line for a report. */
export const describeHttpBodyBomb = (r: HttpBodyBombReport): string =>
  `${r.alive ? 'alive' : `dead (exit ${String(r.exitCode)})`} after ${r.statuses.length} concurrent 64 MiB bodies; statuses ${r.statuses.join(',')}; /health answered within ${(r.longestHealthMs / 1000).toFixed(1)} s meanwhile (load ${loadavg()[0]?.toFixed(1)}); peak RSS ${(r.peakRss / MB).toFixed(0)} MB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `… http-bodies.ts [BIN] [-- FLAG…]`: flags after `--` go to mep serve (e.g. --max-bodies 64MiB).
  const dash = process.argv.indexOf('--');
  const bin = dash === 2 ? undefined : process.argv[2];
  const args = dash < 0 ? [] : process.argv.slice(dash + 1);
  const report = await runHttpBodyBomb({ clients: 6, args, ...(bin ? { bin } : {}) });
  console.log(describeHttpBodyBomb(report));
}
