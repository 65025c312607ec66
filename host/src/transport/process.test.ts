import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { createPeer, type Peer } from '../rpc/peer.ts';
import { createProcessTransport, type ProcessTransport, type ProcessTransportOptions } from './process.ts';
import type { LogSink } from './types.ts';

const fixture = (file: string) => fileURLToPath(new URL(`../../../fixtures/extensions/${file}`, import.meta.url));
const INIT = { protocolVersions: ['0.1'], host: { name: 'test', version: '0.1.0' } };
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };

function start(file: string, options: Partial<ProcessTransportOptions> = {}) {
  const transport = createProcessTransport({ name: `fixture:${file}`, command: process.execPath, args: [fixture(file)], cwd: tmpdir(), killGraceMs: 200, termGraceMs: 200, ...options });
  const peer = createPeer(transport, { timeoutMs: 10_000 });
  const closed = new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
  return { transport, peer, closed };
}

async function initialize(peer: Peer, id: string | number = 1) {
  const result = await peer.request('morphir.initialize', INIT, { id });
  peer.notify('morphir.initialized', {});
  return result as { protocolVersion: string; capabilities: { backend: { targets: string[] } } };
}

async function rejection(promise: Promise<unknown>): Promise<MepError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isMepError(error), 'rejects with a MepError');
    return error;
  }
  throw new Error('expected a rejection');
}

function assertGone(pid: number | undefined) {
  assert.ok(pid !== undefined && pid > 0);
  try {
    process.kill(pid!, 0);
    assert.unreachable(`process ${pid} is still alive`);
  } catch (error) {
    assert.is((error as NodeJS.ErrnoException).code, 'ESRCH');
  }
}

const proc = suite('createProcessTransport');

proc('should run a full MEP session with the well-behaved fixture and end with exit', async () => {
  const lines: string[] = [];
  const log: LogSink = (entry) => lines.push(entry.message);
  const { transport, peer, closed } = start('well-behaved.mjs', { log });
  try {
    const init = await initialize(peer, 'init-1');
    assert.is(init.protocolVersion, '0.1');
    assert.equal(await peer.request('morphir.ping', {}, { id: 7 }), { ok: true });
    const progress: unknown[] = [];
    peer.onNotification('morphir.progress', (p) => progress.push(p));
    const generated = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { progress: true } }, { id: 'gen-1' })) as {
      success: boolean;
      artifacts: Array<{ path: string; content: string }>;
    };
    assert.ok(generated.success);
    assert.equal(JSON.parse(generated.artifacts[0].content), IR);
    assert.equal(progress.map((p) => (p as { kind: string; requestId: unknown }).kind), ['begin', 'report', 'end']);
    assert.is((progress[0] as { requestId: unknown }).requestId, 'gen-1');
    const claims = (await peer.request('morphir.extension.describe', { protocolVersions: ['0.1'] })) as { claimsVersion: string };
    assert.is(claims.claimsVersion, '0.1.0-draft.2');
    assert.is((await rejection(peer.request('morphir.nope', {}))).code, ErrorCode.MethodNotFound);
    await peer.request('morphir.shutdown', {});
    assert.is((await rejection(peer.request('morphir.ping', {}))).code, ErrorCode.NotInitialized);
    peer.notify('morphir.exit');
    assert.is(await closed, undefined, 'a clean exit closes without an error');
    assert.ok(lines.some((l) => l.includes('started mep.fixture.well-behaved')), 'stderr routed to the log sink');
    assert.ok(lines.some((l) => l.includes('exit received')));
    assertGone(transport.pid);
  } finally {
    await peer.close();
  }
});

proc('should honour $/cancelRequest with -32800 and answer extension-to-host requests', async () => {
  const { transport, peer } = start('well-behaved.mjs');
  try {
    await initialize(peer);
    const controller = new AbortController();
    const slow = peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { delayMs: 60_000 } }, { signal: controller.signal });
    controller.abort();
    assert.is((await rejection(slow)).code, ErrorCode.RequestCancelled);
    peer.onRequest('host.echo', (params) => ({ echoed: params }));
    const asked = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { askHost: { method: 'host.echo', params: { n: 1 } } } })) as {
      artifacts: Array<{ content: string }>;
    };
    assert.equal(JSON.parse(asked.artifacts[0].content).hostAnswer, { result: { echoed: { n: 1 } } });
  } finally {
    await peer.close();
    assertGone(transport.pid);
  }
});

proc('should give the child exactly the given environment and the explicit cwd', async () => {
  const cwd = realpathSync(tmpdir());
  const empty = start('well-behaved.mjs', { cwd });
  const given = start('well-behaved.mjs', { env: { MEP_FIXTURE: 'yes' } });
  try {
    await initialize(empty.peer);
    await initialize(given.peer);
    const a = (await empty.peer.request('fixture.env', {})) as { env: Record<string, string>; cwd: string };
    const b = (await given.peer.request('fixture.env', {})) as { env: Record<string, string> };
    assert.equal(a.env, {});
    assert.is(a.cwd, cwd);
    assert.equal(b.env, { MEP_FIXTURE: 'yes' });
  } finally {
    await empty.peer.close();
    await given.peer.close();
  }
});

proc('should close with a framing error naming the extension when it logs on stdout', async () => {
  const { transport, peer, closed } = start('log-on-stdout.mjs');
  try {
    await initialize(peer);
    const error = await rejection(peer.request('morphir.extension.capabilities', {}));
    assert.is(error.code, LocalErrorCode.Framing);
    assert.ok(error.message.includes('fixture:log-on-stdout.mjs'));
    assert.is((await closed)?.code, LocalErrorCode.Framing);
  } finally {
    await peer.close();
    assertGone(transport.pid);
  }
});

proc('should refuse a malformed frame', async () => {
  const { peer } = start('malformed-frame.mjs');
  try {
    await initialize(peer);
    assert.is((await rejection(peer.request('morphir.extension.info', {}))).code, LocalErrorCode.Framing);
  } finally {
    await peer.close();
  }
});

proc('should refuse a huge frame from its header, before the body arrives', async () => {
  const { transport, peer } = start('huge-frame.mjs');
  try {
    await initialize(peer);
    const error = await rejection(peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }));
    assert.is(error.code, LocalErrorCode.Limit);
    assert.is((error.data as { declared: number }).declared, 100 * 1024 * 1024);
    assert.match(error.message, /--max-message .*"maxMessageBytes"/);
  } finally {
    await peer.close();
    assertGone(transport.pid);
  }
});

proc('should reject the pending request with ExtensionCrashed when the child dies mid-request', async () => {
  const { peer } = start('crash-mid-request.mjs');
  try {
    await initialize(peer);
    const error = await rejection(peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }));
    assert.is(error.code, LocalErrorCode.ExtensionCrashed);
    const data = error.data as { exitCode: number; stderr: string[] };
    assert.is(data.exitCode, 3);
    assert.ok(data.stderr.some((l) => l.includes('out of cheese')));
    assert.is((await rejection(peer.request('morphir.ping', {}))).code, LocalErrorCode.TransportClosed);
  } finally {
    await peer.close();
  }
});

proc('should kill a child that ignores exit, stdin end and SIGTERM', async () => {
  const { transport, peer } = start('hang-on-shutdown.mjs', { killGraceMs: 100, termGraceMs: 100 });
  await initialize(peer);
  await peer.request('morphir.shutdown', {});
  peer.notify('morphir.exit');
  await peer.close();
  assertGone(transport.pid);
});

proc('should report the unknown id when an extension changes a response id', async () => {
  const { peer } = start('wrong-id.mjs');
  try {
    const stray = new Promise<unknown>((resolve) => peer.onProtocolError((_e, message) => resolve(message.id)));
    const error = await rejection(peer.request('morphir.initialize', INIT, { id: 'init-1', timeoutMs: 2000 }));
    assert.is(await stray, 1);
    assert.is(error.code, LocalErrorCode.Timeout);
  } finally {
    await peer.close();
  }
});

proc('should survive writing to a dead child and report the crash', async () => {
  const { transport, peer, closed } = start('well-behaved.mjs');
  try {
    await initialize(peer);
    process.kill(transport.pid!, 'SIGKILL');
    const big = 'x'.repeat(1 << 20);
    const pending = peer.request('morphir.ping', { big }).catch((e: unknown) => e);
    const reason = await closed;
    assert.is(reason?.code, LocalErrorCode.ExtensionCrashed);
    assert.is((reason?.data as { signal: string }).signal, 'SIGKILL');
    assert.is(((await pending) as MepError).code, LocalErrorCode.ExtensionCrashed);
  } finally {
    await peer.close();
  }
});

proc('should report a command that cannot start, saying which', async () => {
  const transport = createProcessTransport({ name: 'missing', command: '/nonexistent/ext', cwd: tmpdir() });
  const reason = await new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
  assert.is(reason?.code, LocalErrorCode.Usage);
  assert.ok(reason?.message.includes('/nonexistent/ext'));
  await transport.close();
  try {
    createProcessTransport({ name: 'nocwd', command: process.execPath, cwd: '/nonexistent/dir' });
    assert.unreachable('a missing cwd is refused synchronously');
  } catch (error) {
    assert.is((error as MepError).code, LocalErrorCode.Usage);
  }
});

proc('should speak ndjson when asked', async () => {
  const echo = "process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => process.exit(0));";
  const transport: ProcessTransport = createProcessTransport({ name: 'echo', command: process.execPath, args: ['-e', echo], cwd: tmpdir(), framing: 'ndjson' });
  try {
    const got = new Promise<unknown>((resolve) => transport.onMessage(resolve));
    transport.send({ jsonrpc: '2.0', method: 'x', params: { s: 'é\n' } });
    assert.equal(await got, { jsonrpc: '2.0', method: 'x', params: { s: 'é\n' } });
  } finally {
    await transport.close();
    assertGone(transport.pid);
  }
});

proc('should kill remaining children when the host process exits', async () => {
  const host = `
    const { createProcessTransport } = await import(${JSON.stringify(new URL('./process.ts', import.meta.url).href)});
    const t = createProcessTransport({ name: 'orphan', command: process.execPath, args: [${JSON.stringify(fixture('hang-on-shutdown.mjs'))}], cwd: '/' });
    t.onMessage(() => {});
    process.stdout.write(String(t.pid));
    setTimeout(() => process.exit(0), 300);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', host], { encoding: 'utf8', timeout: 20_000 });
  assert.is(run.status, 0, run.stderr);
  // The orphan was re-parented; until its new parent reaps it, a killed child is a zombie.
  const pid = Number(run.stdout);
  const deadline = Date.now() + 5000;
  while (!deadOrZombie(pid) && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  assert.ok(deadOrZombie(pid), `process ${pid} survived its host`);
});

function deadOrZombie(pid: number): boolean {
  try {
    return /^State:\s+[ZX]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true; // no /proc entry: gone
  }
}

proc.run();
