import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { createMemoryTransportPair, type MemoryTransport } from '../transport/memory.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { createPeer, type Peer } from './peer.ts';

/** The far side is a raw transport whose incoming messages are queued for the test to read. */
function setup(options: { sync?: boolean; timeoutMs?: number } = {}) {
  const [hostEnd, extEnd] = createMemoryTransportPair({ names: ['host', 'ext'], sync: options.sync });
  const peer = createPeer(hostEnd, { timeoutMs: options.timeoutMs ?? 0 });
  const inbox: JsonRpcMessage[] = [];
  const waiters: Array<(m: JsonRpcMessage) => void> = [];
  extEnd.onMessage((m) => {
    const waiter = waiters.shift();
    if (waiter) waiter(m);
    else inbox.push(m);
  });
  const next = () => new Promise<JsonRpcMessage>((resolve) => (inbox.length ? resolve(inbox.shift()!) : waiters.push(resolve)));
  const reply = (id: unknown, result: unknown) => extEnd.send({ jsonrpc: '2.0', id, result });
  return { peer, hostEnd, extEnd, inbox, next, reply };
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

async function done(peer: Peer, ext: MemoryTransport) {
  await peer.close();
  await ext.close();
}

const requests = suite('Peer.request');

requests('should match out-of-order responses :: second answered first', async () => {
  const t = setup();
  try {
    const first = t.peer.request('a', { n: 1 });
    const second = t.peer.request('b', [2]);
    const [m1, m2] = [await t.next(), await t.next()];
    assert.equal([m1.method, m2.method], ['a', 'b']);
    assert.equal(m2.params, [2]);
    t.reply(m2.id, 'two');
    assert.is(await second, 'two');
    t.reply(m1.id, 'one');
    assert.is(await first, 'one');
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should send string and integer ids unchanged and never reuse an active id', async () => {
  const t = setup();
  try {
    const auto = t.peer.request('x');
    const str = t.peer.request('x', undefined, { id: 'compile-1' });
    const int = t.peer.request('x', undefined, { id: 42 });
    const dup = await rejection(t.peer.request('x', undefined, { id: 'compile-1' }));
    assert.is(dup.code, LocalErrorCode.Usage);
    const ids = [(await t.next()).id, (await t.next()).id, (await t.next()).id];
    assert.is(typeof ids[0], 'number');
    assert.equal(ids.slice(1), ['compile-1', 42]);
    t.reply('42', 'wrong type');
    t.reply(42, 'int');
    t.reply('compile-1', 'str');
    t.reply(ids[0], 'auto');
    assert.equal(await Promise.all([auto, str, int]), ['auto', 'str', 'int']);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should reject an error response with its code and data', async () => {
  const t = setup();
  try {
    const p = t.peer.request('morphir.initialize', {});
    const m = await t.next();
    t.extEnd.send({ jsonrpc: '2.0', id: m.id, error: { code: -32011, message: 'no version', data: { hostVersions: ['0.1'] } } });
    const error = await rejection(p);
    assert.is(error.code, ErrorCode.ProtocolVersionMismatch);
    assert.equal(error.data, { hostVersions: ['0.1'] });
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should cancel before the response :: $/cancelRequest, transport.cancel, immediate -32800', async () => {
  const t = setup();
  const protocolErrors: MepError[] = [];
  t.peer.onProtocolError((e) => protocolErrors.push(e));
  try {
    const controller = new AbortController();
    const p = t.peer.request('slow', {}, { signal: controller.signal, id: 'gen-1' });
    await t.next();
    controller.abort();
    assert.is((await rejection(p)).code, ErrorCode.RequestCancelled);
    assert.equal(await t.next(), { jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 'gen-1' } });
    assert.equal(t.hostEnd.cancelled, ['gen-1']);
    const reuse = await rejection(t.peer.request('x', undefined, { id: 'gen-1' }));
    assert.is(reuse.code, LocalErrorCode.Usage, 'a cancelled id stays reserved until its late answer');
    t.extEnd.send({ jsonrpc: '2.0', id: 'gen-1', error: { code: -32800, message: 'cancelled' } });
    // Messages arrive in order: once this probe is answered, the late -32800 was processed.
    const probe = t.peer.request('probe');
    t.reply((await t.next()).id, 'probed');
    await probe;
    const ping = t.peer.request('ping', undefined, { id: 'gen-1' });
    const m = await t.next();
    assert.is(m.id, 'gen-1', 'the late -32800 freed the id without being reported');
    t.reply(m.id, 'pong');
    assert.is(await ping, 'pong');
    assert.is(protocolErrors.length, 0);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should do nothing when aborted after the response, and send nothing when aborted before', async () => {
  const t = setup();
  try {
    const controller = new AbortController();
    const p = t.peer.request('fast', {}, { signal: controller.signal });
    t.reply((await t.next()).id, 'ok');
    assert.is(await p, 'ok');
    controller.abort();
    const early = await rejection(t.peer.request('never', {}, { signal: controller.signal }));
    assert.is(early.code, ErrorCode.RequestCancelled);
    const last = t.peer.request('last');
    assert.is((await t.next()).method, 'last', 'no $/cancelRequest and no "never" were sent');
    assert.equal(t.hostEnd.cancelled, []);
    void last.catch(() => undefined); // rejected by close in finally; not under test
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should time out naming the method, and send $/cancelRequest', async () => {
  const t = setup();
  try {
    const p = t.peer.request('morphir.backend.generate', {}, { timeoutMs: 5 });
    const sent = await t.next();
    const error = await rejection(p);
    assert.is(error.code, LocalErrorCode.Timeout);
    assert.equal((error.data as { method: string }).method, 'morphir.backend.generate');
    assert.equal(await t.next(), { jsonrpc: '2.0', method: '$/cancelRequest', params: { id: sent.id } });
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should reject every pending request with the transport close error', async () => {
  const t = setup();
  try {
    const pending = [t.peer.request('a'), t.peer.request('b'), t.peer.request('c')];
    const closed = new Promise<MepError | undefined>((resolve) => t.peer.onClose(resolve));
    t.hostEnd.fail(new MepError(LocalErrorCode.ExtensionCrashed, 'exit code 3'));
    for (const p of pending) assert.is((await rejection(p)).code, LocalErrorCode.ExtensionCrashed);
    assert.is((await closed)?.code, LocalErrorCode.ExtensionCrashed);
    assert.ok(t.peer.closed);
    assert.is((await rejection(t.peer.request('later'))).code, LocalErrorCode.TransportClosed);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests('should reject pending with ERR_TRANSPORT_CLOSED when the other end closes or on peer.close()', async () => {
  const t = setup();
  const p = t.peer.request('a');
  await t.extEnd.close();
  assert.is((await rejection(p)).code, LocalErrorCode.TransportClosed);
  const u = setup();
  const q = u.peer.request('b');
  await u.peer.close();
  assert.is((await rejection(q)).code, LocalErrorCode.TransportClosed);
  await u.extEnd.close();
});

requests('should resolve abandonedAnswered once the late answer of a cancelled request arrives, or the connection ends', async () => {
  const t = setup();
  try {
    await t.peer.abandonedAnswered(); // nothing abandoned: at once
    const controller = new AbortController();
    const call = t.peer.request('slow', {}, { id: 'c-1', signal: controller.signal });
    await t.next();
    controller.abort();
    await rejection(call);
    let answered = false;
    const waiting = t.peer.abandonedAnswered().then(() => (answered = true));
    await t.next(); // the $/cancelRequest
    await new Promise((r) => setTimeout(r, 10));
    assert.is(answered, false, 'still waiting for the extension');
    t.extEnd.send({ jsonrpc: '2.0', id: 'c-1', error: { code: -32800, message: 'cancelled' } });
    await waiting;
    const other = new AbortController();
    const second = t.peer.request('slow', {}, { signal: other.signal });
    other.abort();
    await rejection(second);
    const closing = t.peer.abandonedAnswered();
    await t.peer.close();
    await closing;
  } finally {
    await done(t.peer, t.extEnd);
  }
});

requests.run();

const incoming = suite('Peer incoming');

incoming('should report unknown-id and malformed responses, not crash', async () => {
  const t = setup();
  try {
    const reports: Array<[unknown, JsonRpcMessage]> = [];
    t.peer.onProtocolError((e, m) => reports.push([e.code, m]));
    const p = t.peer.request('x');
    const m = await t.next();
    t.reply(999, 'stray');
    t.extEnd.send({ jsonrpc: '2.0', id: m.id, result: 1, error: { code: 1, message: 'both' } });
    assert.is((await rejection(p)).code, LocalErrorCode.Protocol, 'the malformed answer settles its request');
    t.extEnd.send({ jsonrpc: '1.0', id: 5, result: 1 });
    const after = t.peer.request('still-works');
    t.reply((await t.next()).id, 'yes');
    assert.is(await after, 'yes');
    assert.equal(reports.map(([code]) => code), [LocalErrorCode.Protocol, LocalErrorCode.Protocol, LocalErrorCode.Protocol]);
    assert.equal(reports[0][1], { jsonrpc: '2.0', id: 999, result: 'stray' });
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming('should deliver notifications both ways', async () => {
  const t = setup();
  try {
    const got = new Promise<unknown>((resolve) => t.peer.onNotification('morphir.progress', resolve));
    const any: string[] = [];
    t.peer.onAnyNotification((_p, method) => any.push(method));
    t.extEnd.send({ jsonrpc: '2.0', method: 'morphir.progress', params: { requestId: 1, kind: 'begin' } });
    assert.equal(await got, { requestId: 1, kind: 'begin' });
    assert.equal(any, ['morphir.progress']);
    t.peer.notify('morphir.initialized', {});
    assert.equal(await t.next(), { jsonrpc: '2.0', method: 'morphir.initialized', params: {} });
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming('should answer a synchronous handler before the transport listener returns', async () => {
  const t = setup({ sync: true });
  try {
    t.peer.onRequest('secret.resolve', (params) => ({ value: (params as { name: string }).name.toUpperCase() }));
    t.extEnd.send({ jsonrpc: '2.0', id: 'r1', method: 'secret.resolve', params: { name: 'token' } });
    assert.equal(t.inbox, [{ jsonrpc: '2.0', id: 'r1', result: { value: 'TOKEN' } }]);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming('should answer async handlers, unknown methods and thrown errors with the right codes', async () => {
  const t = setup();
  try {
    const handlerErrors: string[] = [];
    t.peer.onHandlerError((_e, method) => handlerErrors.push(method));
    t.peer.onRequest('async', async () => 'later');
    t.peer.onRequest('denied', () => {
      throw new MepError(ErrorCode.PermissionDenied, 'no', { data: { permission: 'network' } });
    });
    t.peer.onRequest('buggy', () => {
      throw new Error('secret internals /home/user');
    });
    t.extEnd.send({ jsonrpc: '2.0', id: 1, method: 'async' });
    assert.equal(await t.next(), { jsonrpc: '2.0', id: 1, result: 'later' });
    t.extEnd.send({ jsonrpc: '2.0', id: 2, method: 'nope' });
    assert.is(((await t.next()).error as { code: number }).code, ErrorCode.MethodNotFound);
    t.extEnd.send({ jsonrpc: '2.0', id: 3, method: 'denied' });
    assert.equal((await t.next()).error, { code: ErrorCode.PermissionDenied, message: 'no', data: { permission: 'network' } });
    t.extEnd.send({ jsonrpc: '2.0', id: 4, method: 'buggy' });
    const buggy = (await t.next()).error as { code: number; message: string; data?: unknown };
    assert.is(buggy.code, ErrorCode.InternalError);
    assert.not.ok(JSON.stringify(buggy).includes('/home/user'), 'no internals on the wire');
    assert.equal(handlerErrors, ['buggy']);
    t.extEnd.send({ jsonrpc: '2.0', id: 5, method: 1 });
    assert.equal(((await t.next()) as { id: unknown; error: { code: number } }).error.code, ErrorCode.InvalidRequest);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming('should abort a handler signal on $/cancelRequest from the other side', async () => {
  const t = setup();
  try {
    t.peer.onRequest('wait', (_p, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new MepError(ErrorCode.RequestCancelled, 'cancelled')))));
    t.extEnd.send({ jsonrpc: '2.0', id: 'w', method: 'wait' });
    t.extEnd.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 'w' } });
    assert.equal(((await t.next()).error as { code: number }).code, ErrorCode.RequestCancelled);
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming('should hold the other side back while a notification handler works :: pause once, resume once, in order', async () => {
  const t = setup({ sync: true });
  try {
    const seen: number[] = [];
    const writes: Array<() => void> = [];
    const failures: unknown[] = [];
    t.peer.onHandlerError((error) => failures.push(error));
    t.peer.onNotification('chunk', (params) => {
      const n = (params as { n: number }).n;
      seen.push(n);
      // The first two are slow (a write still going), the rest are taken at once.
      if (n < 2) return new Promise<void>((resolve) => writes.push(resolve));
      if (n === 4) return Promise.reject(new Error('disk full'));
      return undefined;
    });
    t.extEnd.send({ jsonrpc: '2.0', method: 'chunk', params: { n: 0 } });
    assert.ok(t.hostEnd.paused, 'paused while the first write runs');
    t.extEnd.send({ jsonrpc: '2.0', method: 'chunk', params: { n: 1 } });
    t.extEnd.send({ jsonrpc: '2.0', method: 'chunk', params: { n: 2 } });
    assert.equal(seen, [0], 'nothing more was taken while paused');
    (writes.shift() as () => void)();
    await Promise.resolve();
    assert.equal(seen, [0, 1], 'resumed, and paused again by the next slow write');
    assert.ok(t.hostEnd.paused);
    (writes.shift() as () => void)();
    await Promise.resolve();
    assert.equal(seen, [0, 1, 2]);
    assert.not.ok(t.hostEnd.paused, 'resumed once every write settled');
    t.extEnd.send({ jsonrpc: '2.0', method: 'chunk', params: { n: 4 } });
    assert.ok(t.hostEnd.paused);
    await new Promise((resolve) => setImmediate(resolve));
    assert.not.ok(t.hostEnd.paused, 'a rejected hold resumes too');
    assert.is(failures.length, 1, 'and is reported as a handler error');
  } finally {
    await done(t.peer, t.extEnd);
  }
});

incoming.run();
