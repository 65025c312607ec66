import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import type { JsonRpcMessage } from './types.ts';
import { createMemoryTransportPair } from './memory.ts';

const pair = suite('createMemoryTransportPair');

pair('should deliver copies in order, asynchronously', async () => {
  const [a, b] = createMemoryTransportPair();
  try {
    const got: JsonRpcMessage[] = [];
    const two = new Promise<void>((resolve) => b.onMessage((m) => got.push(m) === 2 && resolve()));
    const sent = { jsonrpc: '2.0', method: 'one', params: { drop: undefined } };
    a.send(sent);
    a.send({ jsonrpc: '2.0', method: 'two' });
    assert.is(got.length, 0, 'not delivered inside send');
    await two;
    assert.equal(got, [{ jsonrpc: '2.0', method: 'one', params: {} }, { jsonrpc: '2.0', method: 'two' }]);
    assert.is.not(got[0], sent);
  } finally {
    await a.close();
    await b.close();
  }
});

pair('should deliver inline when sync', async () => {
  const [a, b] = createMemoryTransportPair({ sync: true });
  try {
    let got: JsonRpcMessage | undefined;
    b.onMessage((m) => (got = m));
    a.send({ jsonrpc: '2.0', method: 'now' });
    assert.equal(got, { jsonrpc: '2.0', method: 'now' });
  } finally {
    await a.close();
    await b.close();
  }
});

pair('should deliver messages sent before close, then close the other end with a code', async () => {
  const [a, b] = createMemoryTransportPair();
  const events: string[] = [];
  const closedB = new Promise<MepError | undefined>((resolve) => b.onClose(resolve));
  b.onMessage((m) => events.push(String(m.method)));
  a.send({ jsonrpc: '2.0', method: 'last' });
  await a.close();
  const error = await closedB;
  assert.equal(events, ['last']);
  assert.is(error?.code, LocalErrorCode.TransportClosed);
  try {
    a.send({ jsonrpc: '2.0', method: 'late' });
    assert.unreachable('send after close throws');
  } catch (e) {
    assert.ok(isMepError(e));
    assert.is(e.code, LocalErrorCode.TransportClosed);
  }
});

pair('should close this end with the given error on fail', async () => {
  const [a, b] = createMemoryTransportPair();
  try {
    const closedA = new Promise<MepError | undefined>((resolve) => a.onClose(resolve));
    const closedB = new Promise<MepError | undefined>((resolve) => b.onClose(resolve));
    b.fail(new MepError(LocalErrorCode.ExtensionCrashed, 'crashed'));
    assert.is((await closedB)?.code, LocalErrorCode.ExtensionCrashed);
    assert.is((await closedA)?.code, LocalErrorCode.TransportClosed);
  } finally {
    await a.close();
    await b.close();
  }
});

pair.run();
