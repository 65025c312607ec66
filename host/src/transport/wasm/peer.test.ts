import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode, isMepError } from '../../protocol/errors.ts';
import { createPeer } from '../../rpc/index.ts';
import { openFixture, rejection } from '../../../../fixtures/wasm/test-client.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);

for (const isolation of ['inline', 'worker'] as const) {
  const withPeer = suite(`wasm transport under the rpc peer :: ${isolation}`);

  withPeer('should resolve a request with the echoed params', async () => {
    const peer = createPeer(await openFixture('echo', isolation));
    try {
      assert.equal(await peer.request('ping', { n: 1 }), { n: 1 });
    } finally {
      await peer.close();
    }
  });

  withPeer('should answer a guest request from a synchronous handler', async () => {
    const peer = createPeer(await openFixture('echo', isolation));
    try {
      peer.onRequest('secret.resolve', () => ({ value: 'tok' }));
      assert.equal(await peer.request('ask'), { jsonrpc: '2.0', id: 'g1', result: { value: 'tok' } });
    } finally {
      await peer.close();
    }
  });

  withPeer('should deliver progress to notification handlers before the result', async () => {
    const peer = createPeer(await openFixture('echo', isolation));
    try {
      const order: string[] = [];
      peer.onNotification('$/progress', () => void order.push('progress'));
      await peer.request('notify', {}).then(() => order.push('result'));
      assert.equal(order, ['progress', 'result']);
    } finally {
      await peer.close();
    }
  });

  withPeer('should reject the pending request with the typed failure :: trap', async () => {
    const peer = createPeer(await openFixture('trap', isolation));
    try {
      assert.is(codeOf(await rejection(peer.request('ping'))), LocalErrorCode.ExtensionCrashed);
      assert.ok(peer.closed);
    } finally {
      await peer.close();
    }
  });

  withPeer('should reject with ERR_TIMEOUT at the transport deadline :: polling loop', async () => {
    const peer = createPeer(await openFixture('loop-polling', isolation, { limits: { callTimeoutMs: 500 } }));
    try {
      assert.is(codeOf(await rejection(peer.request('ping'))), LocalErrorCode.Timeout);
    } finally {
      await peer.close();
    }
  });

  withPeer('should cancel a running request through an abort signal and stay usable', async () => {
    const peer = createPeer(await openFixture('echo', isolation));
    try {
      const abort = new AbortController();
      peer.onNotification('$/progress', () => abort.abort());
      assert.is(codeOf(await rejection(peer.request('spin', {}, { signal: abort.signal }))), ErrorCode.RequestCancelled);
      assert.equal(await peer.request('ping', 'after'), 'after');
    } finally {
      await peer.close();
    }
  });

  withPeer.run();
}

const asyncAnswer = suite('wasm transport under the rpc peer :: worker, asynchronous handler');

asyncAnswer('should wait for an asynchronous handler in a worker', async () => {
  const peer = createPeer(await openFixture('echo', 'worker'));
  try {
    peer.onRequest('secret.resolve', async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return 'async';
    });
    assert.equal(await peer.request('ask'), { jsonrpc: '2.0', id: 'g1', result: 'async' });
  } finally {
    await peer.close();
  }
});

asyncAnswer.run();
