import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Method } from '../protocol/methods.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const streamer = join(root, 'fixtures/extensions/artifact-stream.mjs');
const ir = { formatVersion: 3, distribution: ['Library', [['acme']], [], { modules: [] }] };
const MiB = 1024 * 1024;
const generate = (count: number) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { ir, target: 'echo', options: { count, kib: 1024 } } });

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), ms)))]).finally(() => clearTimeout(timer));
};

const Pending = suite('mep serve --http :: an SSE client that does not read');

Pending('should drop an event stream whose unread events pass the bound and cancel its call, not buffer them all', async () => {
  const served = await startTestHttp({ flood: streamer }, { maxPendingBytes: 4 * MiB });
  const { port } = served.listener;
  const socket = connect(port, '127.0.0.1');
  try {
    const body = generate(64);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`POST /extensions/flood HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    socket.pause(); // never reads a byte of the 64 MiB stream
    const cancel = await within(served.nextSent((m) => m.method === Method.CancelRequest), 30_000);
    assert.ok(cancel !== 'timed out', 'the call was cancelled once the unread events passed the bound');
  } finally {
    socket.destroy();
    await served.close();
  }
});

Pending('should deliver a stream far larger than the bound to a client that reads it', async () => {
  const served = await startTestHttp({ flood: streamer }, { maxPendingBytes: 4 * MiB });
  try {
    const response = await fetch(`${served.listener.url}/extensions/flood`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: generate(16) });
    const text = await response.text();
    const events = text.split('\n\n').map((block) => block.split('\n').find((line) => line.startsWith('data: '))).filter((line) => line !== undefined).map((line) => JSON.parse(line.slice(6)) as JsonRpcMessage);
    assert.is(events.filter((e) => e.method === Method.BackendArtifact).length, 16);
    assert.equal((events[events.length - 1]?.result as { streamedArtifacts?: number }).streamedArtifacts, 16);
  } finally {
    await served.close();
  }
});

Pending.run();
