import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, isMepError, type MepError } from '../../protocol/errors.ts';
import { createPeer } from '../../rpc/peer.ts';
import { createProcessTransport, type ProcessTransportOptions } from './index.ts';

const fixture = (file: string) => fileURLToPath(new URL(`../../../../fixtures/extensions/${file}`, import.meta.url));
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
const limitOf = (error: MepError | undefined): unknown => (error?.data as { limit?: unknown } | undefined)?.limit;

/** Starts `file` with a raw peer, initialized; `closed` settles with the close reason, or 'still open' after `ms`. */
async function open(file: string, options: Partial<ProcessTransportOptions> = {}, ms = 30_000) {
  const transport = createProcessTransport({ name: `fixture:${file}`, command: process.execPath, args: [fixture(file)], cwd: tmpdir(), killGraceMs: 200, termGraceMs: 200, ...options });
  const peer = createPeer(transport, { timeoutMs: 60_000 });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = Promise.race([
    new Promise<MepError | undefined>((resolve) => transport.onClose(resolve)),
    new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), ms))),
  ]).finally(() => clearTimeout(timer));
  await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
  peer.notify('morphir.initialized', {});
  return { transport, peer, closed };
}

const Backlog = suite('process transport :: stdin backlog');

Backlog('should hold, then end, an extension that stops reading its stdin while it sends requests, naming the bound :: ERR_LIMIT', async () => {
  const { transport, peer, closed } = await open('stdin-jam.mjs', { stdinStallMs: 500 });
  try {
    void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }).catch(() => undefined);
    const reason = await closed;
    assert.is(codeOf(reason), LocalErrorCode.Limit, String(reason));
    assert.is(limitOf(reason as MepError), 'maxStdinBacklogBytes');
    assert.match((reason as MepError).message, /read/);
  } finally {
    peer.close();
    await transport.close();
  }
});

Backlog('should hold, not end, an extension past the backlog bound while its grace runs', async () => {
  const { transport, peer, closed } = await open('stdin-jam.mjs', { maxStdinBacklogBytes: 1024 * 1024, stdinStallMs: 60_000 }, 3_000);
  try {
    void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { mib: 8 } }).catch(() => undefined);
    assert.is(await closed, 'still open', 'held while the stall grace runs');
  } finally {
    peer.close();
    await transport.close();
  }
});

Backlog('should refuse a request past the stdin backlog bound, not buffer it, and keep an extension that reads (a caller pipelining calls)', async () => {
  // A well-behaved extension reads everything; a caller (a mep serve client pipelining
  // session/call) sends faster. Before, the host buffered it all (110 MB from one socket client)
  // and ended the extension for "not reading" when the stall grace ran out.
  const { transport, peer, closed } = await open('well-behaved.mjs', { maxStdinBacklogBytes: 2 * 1024 * 1024, stdinStallMs: 20_000 }, 3_000);
  // The grace is long so that a reader slowed by a loaded machine is not ended for stalling
  // (CI saw that at 300 ms); the refusal does not wait for it.
  try {
    const pad = 'p'.repeat(1024 * 1024);
    const calls = Array.from({ length: 32 }, () => peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { pad } }).then(() => 'ok', (e: unknown) => e));
    const outcomes = await Promise.all(calls);
    const refused = outcomes.filter((o) => o !== 'ok');
    assert.ok(refused.length > 0, 'some calls are refused');
    for (const error of refused) {
      assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
      assert.is(limitOf(error as MepError), 'maxStdinBacklogBytes');
    }
    assert.ok(outcomes.includes('ok'), 'the calls within the bound are answered');
    assert.is(await closed, 'still open', 'an extension that reads is not ended');
  } finally {
    peer.close();
    await transport.close();
  }
});

Backlog.run();

const Outstanding = suite('process transport :: requests to the host');

Outstanding('should end an extension with more than 64 requests outstanding to the host :: ERR_LIMIT', async () => {
  const { transport, peer, closed } = await open('request-flood.mjs');
  peer.onRequest('fixture.flood', () => new Promise(() => undefined));
  try {
    void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { requests: 1000 } }).catch(() => undefined);
    const reason = await closed;
    assert.is(codeOf(reason), LocalErrorCode.Limit, String(reason));
    assert.is(limitOf(reason as MepError), 'maxOutstandingRequests');
  } finally {
    peer.close();
    await transport.close();
  }
});

Outstanding('should take 64 outstanding requests, answered late', async () => {
  const { transport, peer } = await open('request-flood.mjs');
  const answers: (() => void)[] = [];
  peer.onRequest('fixture.flood', () => new Promise<null>((resolve) => answers.push(() => resolve(null))));
  try {
    const result = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { requests: 64 } })) as { success: boolean };
    assert.ok(result.success);
    for (const answer of answers.splice(0)) answer();
    assert.equal(await peer.request('morphir.ping', {}), { ok: true });
  } finally {
    peer.close();
    await transport.close();
  }
});

Outstanding('should count the requests an extension sends the host against maxNotificationBytes, one outstanding at a time :: ERR_LIMIT :: requests', async () => {
  // 64 requests of 16 KiB, each sent once the last was answered, against a budget of 256 KiB:
  // before, every one was decoded and answered, without end (the outstanding bound never saw them).
  const { transport, peer, closed } = await open('request-flood.mjs', { maxNotificationBytes: 256 * 1024 });
  let asked = 0;
  peer.onRequest('fixture.flood', () => (asked++, null));
  try {
    const error = await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { serial: true, requests: 64, bytes: 16 * 1024 } }).then(() => undefined, (e: unknown) => e);
    assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
    assert.is(limitOf(error as MepError), 'maxNotificationBytes');
    assert.match((error as Error).message, /requests/);
    assert.ok(asked <= 16, `${asked} requests answered past the budget`);
    assert.is(codeOf(await closed), LocalErrorCode.Limit);
  } finally {
    peer.close();
    await transport.close();
  }
});

Outstanding('should answer requests within the budget, and start a new budget with each request of the host', async () => {
  const { transport, peer } = await open('request-flood.mjs', { maxNotificationBytes: 256 * 1024 });
  peer.onRequest('fixture.flood', () => null);
  try {
    for (let call = 0; call < 3; call++) {
      const result = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { serial: true, requests: 8, bytes: 16 * 1024 } })) as { success: boolean };
      assert.ok(result.success);
    }
  } finally {
    peer.close();
    await transport.close();
  }
});

Outstanding('should end an extension that sends a request with an id it already has outstanding (which hid it from the count) :: ERR_PROTOCOL', async () => {
  const { transport, peer, closed } = await open('request-flood.mjs', {}, 10_000);
  let handled = 0;
  peer.onRequest('fixture.flood', () => (handled++, new Promise(() => undefined)));
  try {
    void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { requests: 1000, sameId: true } }).catch(() => undefined);
    const reason = await closed;
    assert.is(codeOf(reason), LocalErrorCode.Protocol, String(reason));
    assert.match((reason as MepError).message, /"flood"/);
    assert.ok(handled <= 1, `${handled} handled`);
  } finally {
    peer.close();
    await transport.close();
  }
});

Outstanding.run();

const Budget = suite('process transport :: notification budget');

Budget('should end a call whose notifications pass maxNotificationBytes, naming the limit :: ERR_LIMIT', async () => {
  const { transport, peer, closed } = await open('request-flood.mjs', { maxNotificationBytes: 256 * 1024 });
  let notified = 0;
  peer.onNotification('morphir.progress', () => void notified++);
  try {
    const call = peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { requests: 0, notifications: 64, bytes: 16 * 1024 } });
    const error = await call.then(() => undefined, (e: unknown) => e);
    assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
    assert.is(limitOf(error as MepError), 'maxNotificationBytes');
    assert.match((error as Error).message, /--max-notifications 512KiB/);
    assert.is(codeOf(await closed), LocalErrorCode.Limit);
    assert.ok(notified <= 16, `${notified} delivered`);
  } finally {
    peer.close();
    await transport.close();
  }
});

Budget('should deliver notifications under the budget, and start a new budget with each request', async () => {
  const { transport, peer } = await open('request-flood.mjs', { maxNotificationBytes: 256 * 1024 });
  let notified = 0;
  peer.onNotification('morphir.progress', () => void notified++);
  try {
    for (let call = 0; call < 3; call++) {
      const result = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { requests: 0, notifications: 12, bytes: 16 * 1024 } })) as { success: boolean };
      assert.ok(result.success);
    }
    assert.is(notified, 36);
  } finally {
    peer.close();
    await transport.close();
  }
});

for (const kind of ['unknown', 'null', 'junk'] as const) {
  Budget(`should count answers that settle no request of the host against maxNotificationBytes :: ${kind}`, async () => {
    const { transport, peer, closed } = await open('stray-answers.mjs', { maxNotificationBytes: 256 * 1024 });
    try {
      const call = peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { kind, count: 64, bytes: 16 * 1024 } });
      const error = await call.then(() => undefined, (e: unknown) => e);
      assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
      assert.is(limitOf(error as MepError), 'maxNotificationBytes');
      assert.match((error as Error).message, /settle no request/);
      assert.is(codeOf(await closed), LocalErrorCode.Limit);
    } finally {
      peer.close();
      await transport.close();
    }
  });
}

Budget('should take a call answered twice or after its cancel within the budget, the first answer settling it', async () => {
  const { transport, peer } = await open('stray-answers.mjs', { maxNotificationBytes: 256 * 1024 });
  try {
    const result = (await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { kind: 'duplicate', count: 4, bytes: 1024 } })) as { success: boolean; text?: string };
    assert.ok(result.success);
    assert.is(result.text?.length, 1024, 'the first answer settles the call');
    assert.equal(await peer.request('morphir.ping', {}), { ok: true });
  } finally {
    peer.close();
    await transport.close();
  }
});

Budget('should end a call answered again and again with the same id past maxNotificationBytes', async () => {
  const { transport, peer, closed } = await open('stray-answers.mjs', { maxNotificationBytes: 256 * 1024 }, 10_000);
  try {
    await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { kind: 'duplicate', count: 64, bytes: 16 * 1024 } });
    const reason = await closed;
    assert.is(codeOf(reason), LocalErrorCode.Limit, String(reason));
    assert.is(limitOf(reason as MepError), 'maxNotificationBytes');
  } finally {
    peer.close();
    await transport.close();
  }
});

Budget('should count frame headers past the few bytes a frame needs against maxNotificationBytes (8 KB of extra headers on each 80-byte notification) :: ERR_LIMIT :: headers', async () => {
  // MEP 0.1 readers accept and ignore headers they do not understand; only bodies were counted,
  // so 100,000 notifications of 80 bytes each with 8 KB of headers were 7.6 MB of budget and
  // 800 MB read (host CPU 6.5 s, against 0.5 s without the headers; the default 64 MiB budget
  // let through ~7 GB).
  const { transport, peer } = await open('padded-headers.mjs', { maxNotificationBytes: 1024 * 1024 });
  try {
    const error = await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { notifications: 2_000, padBytes: 8_000 } }).then(() => 'answered', (e: unknown) => e);
    assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
    assert.is(limitOf(error as MepError), 'maxNotificationBytes');
    assert.match((error as MepError).message, /frame headers or blank lines that carry no message/);
  } finally {
    peer.close();
    await transport.close();
  }
});

Budget('should take the same notifications framed with the headers a writer needs within the budget :: headers', async () => {
  const { transport, peer } = await open('padded-headers.mjs', { maxNotificationBytes: 1024 * 1024 });
  try {
    // Content-Length and an LSP Content-Type (82 bytes) are free.
    const result = await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { notifications: 2_000, padBytes: 60 } });
    assert.equal(result, { success: true, artifacts: [], diagnostics: [] });
  } finally {
    peer.close();
    await transport.close();
  }
});

Budget('should end an ndjson extension that writes blank lines without end, between calls, at maxNotificationBytes :: ERR_LIMIT :: blank lines', async () => {
  // Blank lines carry no message, so nothing counted them: an idle session (no call, so no
  // deadline either) had the host read them for good (64 MiB of them: 21 s of host CPU).
  const flood = "const b = Buffer.alloc(65536, 10); const w = () => { while (process.stdout.write(b)); process.stdout.once('drain', w); }; w();";
  const transport = createProcessTransport({ name: 'blank-lines', command: process.execPath, args: ['-e', flood], cwd: tmpdir(), framing: 'ndjson', maxNotificationBytes: 1024 * 1024, killGraceMs: 200, termGraceMs: 200 });
  try {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reason = await Promise.race([
      new Promise<MepError | undefined>((resolve) => transport.onClose(resolve)),
      new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 15_000))),
    ]).finally(() => clearTimeout(timer));
    assert.is(codeOf(reason), LocalErrorCode.Limit, String(reason));
    assert.is(limitOf(reason as MepError), 'maxNotificationBytes');
    assert.match((reason as MepError).message, /blank lines/);
  } finally {
    await transport.close();
  }
});

Budget.run();

const Descriptors = suite('process transport :: inherited descriptors');

for (const how of ['auto', 'process-group'] as const) {
  Descriptors(`should give the extension stdin, stdout and stderr only, not a descriptor the host inherited :: ${how}`, async () => {
    if (process.platform !== 'linux') return;
    // The host runs with a descriptor 3 it inherited without close-on-exec.
    const host = spawn(process.execPath, ['--import', 'tsx', fixture('list-fds-host.ts'), how], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'] });
    let out = '';
    host.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise((resolve) => host.on('exit', resolve));
    assert.is(code, 0);
    assert.equal(JSON.parse(out), [0, 1, 2]);
  });
}

Descriptors.run();
