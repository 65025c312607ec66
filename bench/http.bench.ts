/**
 * HTTP vs socket daemon: `node --import tsx bench/http.bench.ts`.
 *
 * One generate round trip (the well-behaved fixture's echo backend, a small IR) from a client in
 * this process to `mep serve` in a child process: over `--http` (one POST per call on one
 * keep-alive TCP connection, a pooled session) versus over `--socket` (session/call on an open
 * session). Goal: HTTP ≤ 1.5× the socket daemon, both measured in this run. The goal's client is
 * as lean as the socket's line client (serve/testing/http1-client.ts: the servers and wires are
 * compared, not Node's client libraries); the same calls through node:http's client are printed
 * beside it. Rounds of the three alternate, so load drifting over the run (a shared machine)
 * weighs on each alike; medians of the rounds after bench/lib.ts's warm-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openHttp1Client } from '../host/src/serve/testing/http1-client.ts';
import { createLineClient } from '../host/src/serve/testing/line-client.ts';
import { ROOT, WARMUP_MS, median, perCall, recordGoal } from './lib.ts';

const mep = join(ROOT, 'bin/mep.mjs');
const fixture = join(ROOT, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const params = { ir, target: 'echo', options: {} };

function serve(args: string[]): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, [mep, 'serve', '--verbose', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve({ child, line: match[1] as string });
    });
    child.once('exit', (code) => reject(new Error(`mep serve exited ${code}: ${stderr}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'mep-http-bench-'));
const socketPath = join(dir, 'mep.sock');
const http = await serve(['--http', '127.0.0.1:0', '--extension', fixture]);
const socket = await serve(['--socket', socketPath]);
try {
  const { port } = new URL(http.line);
  // node:http with one keep-alive connection, as lean a client as the socket's line client
  // (undici's fetch costs several times a round trip on a busy machine, and is not the server).
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: Number(port), method: 'POST', path: '/', agent, headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      });
      req.once('error', reject);
      req.end(text);
    });
  const checked = (text: string): void => {
    const body = JSON.parse(text) as { result?: { success: boolean } };
    if (!body.result?.success) throw new Error(`HTTP generate failed: ${text}`);
  };
  const nodeHttpCall = async (i: number): Promise<void> => checked(await post(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'morphir.backend.generate', params })));
  const lean = await openHttp1Client('127.0.0.1', Number(port));
  const httpCall = async (i: number): Promise<void> => checked((await lean.post('/', JSON.stringify({ jsonrpc: '2.0', id: i, method: 'morphir.backend.generate', params }))).body);

  const conn = connect(socketPath);
  await new Promise<void>((resolve, reject) => (conn.once('connect', resolve), conn.once('error', reject)));
  const client = createLineClient((bytes) => conn.write(bytes));
  conn.on('data', (chunk) => client.push(chunk));
  const opened = await client.request('open', 'session/open', { extension: fixture });
  const sessionId = (opened.result as { sessionId: string }).sessionId;
  const socketCall = async (i: number): Promise<void> => {
    const reply = await client.request(i, 'session/call', { sessionId, method: 'morphir.backend.generate', params });
    client.seen.length = 0;
    if (!(reply.result as { success?: boolean } | undefined)?.success) throw new Error(`socket generate failed: ${JSON.stringify(reply)}`);
  };

  const rounds = { socket: [] as number[], http: [] as number[], nodeHttp: [] as number[] };
  for (let r = 0; r < 9; r++) {
    if (process.env.MEP_BENCH_TRACE) console.error(`round ${r}`);
    const warmupMs = r === 0 ? WARMUP_MS : 0;
    rounds.socket.push((await perCall(100, 1, socketCall, warmupMs)).us);
    rounds.http.push((await perCall(100, 1, httpCall, warmupMs)).us);
    rounds.nodeHttp.push((await perCall(100, 1, nodeHttpCall, warmupMs)).us);
  }
  const viaSocket = { us: median(rounds.socket) };
  const viaHttp = { us: median(rounds.http) };
  const viaNodeHttp = { us: median(rounds.nodeHttp) };
  const ratio = viaHttp.us / viaSocket.us;
  console.log(`generate round trip over the socket daemon: ${viaSocket.us.toFixed(0)} µs (baseline)`);
  console.log(`generate round trip over HTTP:              ${viaHttp.us.toFixed(0)} µs = ${ratio.toFixed(2)}× socket (goal ≤ 1.5×)`);
  console.log(`  the same through node:http's client:     ${viaNodeHttp.us.toFixed(0)} µs = ${(viaNodeHttp.us / viaSocket.us).toFixed(2)}× socket`);
  recordGoal('http', {
    what: 'generate round trip, HTTP POST vs the socket daemon (same fixture, same run)',
    measured: `${viaHttp.us.toFixed(0)} µs`,
    baseline: `${viaSocket.us.toFixed(0)} µs socket`,
    ratio,
    ratioMeaning: 'HTTP / socket',
    direction: 'atMost',
    target: 1.5,
  });
  conn.destroy();
  lean.close();
  agent.destroy();
} finally {
  http.child.kill('SIGTERM');
  socket.child.kill('SIGTERM');
  await Promise.all([http, socket].map(({ child }) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
  rmSync(dir, { recursive: true, force: true });
}
