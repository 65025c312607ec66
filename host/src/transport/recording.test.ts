import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryTransportPair } from './memory.ts';
import { createRecordingTransport } from './recording.ts';
import type { MessageDirection } from './recording.ts';
import type { JsonRpcMessage } from './types.ts';

const Recording = suite('transport :: createRecordingTransport');

Recording('should record each message once in both directions, in order, and still deliver it', async () => {
  const [host, extension] = createMemoryTransportPair();
  const seen: [MessageDirection, JsonRpcMessage][] = [];
  const recorded = createRecordingTransport(host, (direction, message) => seen.push([direction, message]));
  const received: JsonRpcMessage[] = [];
  const atExtension: JsonRpcMessage[] = [];
  extension.onMessage((m) => atExtension.push(m));
  recorded.onMessage((m) => received.push(m));
  recorded.onMessage(() => undefined); // a second listener must not record twice
  recorded.send({ jsonrpc: '2.0', id: 1, method: 'morphir.ping' });
  extension.send({ jsonrpc: '2.0', id: 1, result: {} });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(seen.map(([d]) => d), ['host->extension', 'extension->host']);
  assert.equal(received, [{ jsonrpc: '2.0', id: 1, result: {} }]);
  assert.equal(atExtension, [{ jsonrpc: '2.0', id: 1, method: 'morphir.ping' }]);
  assert.is(recorded.name, host.name);
  await recorded.close();
});

Recording('should keep delivering when the recorder throws', async () => {
  const [host, extension] = createMemoryTransportPair();
  const recorded = createRecordingTransport(host, () => {
    throw new Error('disk full');
  });
  const atExtension: JsonRpcMessage[] = [];
  extension.onMessage((m) => atExtension.push(m));
  recorded.send({ jsonrpc: '2.0', method: 'x' });
  await new Promise((r) => setTimeout(r, 0));
  assert.is(atExtension.length, 1);
  await recorded.close();
});

Recording.run();
