import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServeMethod } from './methods.ts';
import { createLineClient, type LineClient } from './testing/line-client.ts';
import { childProcesses, isAlive } from './testing/processes.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mep = join(root, 'bin/mep.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };

/** `mep serve` as a child process, with its exit and its stderr. */
function startServe(args: string[]): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string; waitFor(text: string): Promise<void> } {
  const child = spawn(process.execPath, [mep, 'serve', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  const watchers = new Set<{ text: string; resolve: () => void }>();
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    for (const w of [...watchers]) if (stderr.includes(w.text)) (watchers.delete(w), w.resolve());
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    waitFor: (text) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            watchers.add({ text, resolve });
            void exited.then((code) => reject(new Error(`mep serve exited (${code}) before printing "${text}": ${stderr}`)));
          }),
  };
}

function socketClient(path: string): Promise<{ socket: Socket; client: LineClient }> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const client = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => client.push(chunk));
    socket.once('connect', () => resolve({ socket, client }));
    socket.once('error', reject);
  });
}

/** Polls /proc until `pid` is gone; a process ending is not an event this test can await. */
async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !isAlive(pid);
}

const SocketServe = suite('mep serve :: --socket');

SocketServe('should listen with mode 0600, answer out of order, and kill the child of a client that disconnects mid-call', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-serve-'));
  const path = join(dir, 'mep.sock');
  const serve = startServe(['--socket', path, '--verbose']);
  try {
    await serve.waitFor('listening on');
    assert.ok(statSync(path).isSocket());
    assert.is(statSync(path).mode & 0o777, 0o600);

    const { socket, client } = await socketClient(path);
    const opened = await client.request(1, ServeMethod.Open, { extension: wellBehaved });
    const sessionId = (opened.result as { sessionId: string }).sessionId;
    const slow = client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { delayMs: 300 } } });
    const fast = client.request(3, ServeMethod.Call, { sessionId, method: 'morphir.ping' });
    const [slowResponse, fastResponse] = await Promise.all([slow, fast]);
    assert.ok(client.seen.indexOf(fastResponse) < client.seen.indexOf(slowResponse));

    void client.request(4, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { delayMs: 30_000, progress: true } } });
    await client.next((m) => m.method === ServeMethod.Progress);
    const children = childProcesses(serve.child.pid as number).filter((c) => c.cmdline.includes('well-behaved.mjs'));
    assert.is(children.length, 1, JSON.stringify(children));
    socket.destroy();
    assert.ok(await gone(children[0].pid, 5_000), `extension process ${children[0].pid} still runs after its client left`);
    assert.is(serve.child.exitCode, null, 'the server keeps serving other clients');

    const second = await socketClient(path);
    assert.equal((await second.client.request(1, ServeMethod.Shutdown, {})).result, {});
    assert.is(await serve.exited, 0);
    assert.not.ok(existsSync(path), 'the socket file is removed on shutdown');
    second.socket.destroy();
  } finally {
    serve.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

SocketServe('should replace a stale socket and refuse a path that is not a socket', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-serve-'));
  const path = join(dir, 'stale.sock');
  // A server killed without cleaning up leaves its socket file behind.
  const holder = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const file = join(dir, 'plain-file');
  let serve: ReturnType<typeof startServe> | undefined;
  try {
    await new Promise((resolve) => holder.stdout?.once('data', resolve));
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    assert.ok(statSync(path).isSocket());

    serve = startServe(['--socket', path, '--verbose']);
    await serve.waitFor('listening on');
    const { socket, client } = await socketClient(path);
    assert.is((await client.request(1, ServeMethod.Info)).result !== undefined, true);
    socket.destroy();
    serve.child.kill('SIGTERM');
    assert.is(await serve.exited, 0);

    await writeFile(file, 'keep me');
    const refused = startServe(['--socket', file]);
    assert.is(await refused.exited, 2);
    assert.match(refused.stderr(), /is not a socket/);
    assert.is(await readFile(file, 'utf8'), 'keep me');
  } finally {
    holder.kill('SIGKILL');
    serve?.child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

SocketServe.run();

const Stdio = suite('mep serve :: stdio');

Stdio('should serve over stdin/stdout and stop when stdin ends', async () => {
  const serve = startServe([]);
  try {
    const client = createLineClient((bytes) => serve.child.stdin?.write(bytes));
    serve.child.stdout?.on('data', (chunk: Buffer) => client.push(chunk));
    const info = await client.request(1, ServeMethod.Info);
    assert.is((info.result as { protocol: string }).protocol, 'mep-serve/0.1');
    serve.child.stdin?.end();
    assert.is(await serve.exited, 0);
  } finally {
    serve.child.kill('SIGKILL');
  }
});

Stdio('should give every session the limits of its flags: --call-timeout stops a slow call, naming the option :: limits', async () => {
  const serve = startServe(['--call-timeout', '1500ms']);
  try {
    const client = createLineClient((bytes) => serve.child.stdin?.write(bytes));
    serve.child.stdout?.on('data', (chunk: Buffer) => client.push(chunk));
    const opened = await client.request(1, ServeMethod.Open, { extension: wellBehaved });
    const sessionId = (opened.result as { sessionId: string }).sessionId;
    const late = await client.request(2, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { delayMs: 20_000 } } });
    const error = late.error as { message: string; data: { localCode: string } };
    assert.is(error.data.localCode, 'ERR_TIMEOUT');
    assert.match(error.message, /--call-timeout \S+ .*"callTimeoutMs": 3000/);
    serve.child.stdin?.end();
    assert.is(await serve.exited, 0);
  } finally {
    serve.child.kill('SIGKILL');
  }
});

Stdio('should give every session the output bound of its flags: --max-output-files and --max-output stop a generate call :: limits', async () => {
  const serve = startServe(['--max-output-files', '10', '--max-output', '4KiB']);
  try {
    const client = createLineClient((bytes) => serve.child.stdin?.write(bytes));
    serve.child.stdout?.on('data', (chunk: Buffer) => client.push(chunk));
    const opened = await client.request(1, ServeMethod.Open, { extension: join(root, 'fixtures/extensions/many-artifacts.mjs') });
    const sessionId = (opened.result as { sessionId: string }).sessionId;
    const generate = (id: number, options: Record<string, number>) => client.request(id, ServeMethod.Call, { sessionId, method: 'morphir.backend.generate', params: { ir, target: 'echo', options } });
    const files = (await generate(2, { stream: 20, count: 0 })).error as { message: string; data: { localCode: string; limit: string } };
    assert.equal([files.data.localCode, files.data.limit], ['ERR_LIMIT', 'maxOutputFiles']);
    assert.match(files.message, /--max-output-files 20 /);
    const reopened = await client.request(3, ServeMethod.Open, { extension: join(root, 'fixtures/extensions/many-artifacts.mjs') });
    const again = (reopened.result as { sessionId: string }).sessionId;
    const bytes = (await client.request(4, ServeMethod.Call, { sessionId: again, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { stream: 5, size: 1024, count: 0 } } })).error as { data: { localCode: string; limit: string } };
    assert.equal([bytes.data.localCode, bytes.data.limit], ['ERR_LIMIT', 'maxOutputBytes']);
    serve.child.stdin?.end();
    assert.is(await serve.exited, 0);
  } finally {
    serve.child.kill('SIGKILL');
  }
});

Stdio('should refuse a malformed limit before serving :: hostile', async () => {
  const serve = startServe(['--max-memory', 'plenty']);
  assert.is(await serve.exited, 2);
  assert.match(serve.stderr(), /--max-memory expects a size/);
});

Stdio.run();
