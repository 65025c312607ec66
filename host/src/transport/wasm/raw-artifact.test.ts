/**
 * Streamed artifacts as raw bytes beside a JSON envelope (`mep_artifact`, attach version 2): the
 * transport turns each into the morphir.backend.artifact notification the JSON path parses, in
 * order with the call's other messages, and refuses a guest that lies about them — in both
 * isolations. The PDK's side (the same artifacts as the JSON path) is in
 * examples/avro/raw-artifacts.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { loadPortableWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import type { JsonRpcMessage } from '../types.ts';
import { createWasmTransport, type WasmTransportOptions } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
const spawnWorker = createNodeWasmWorkerSpawner();

/** WAT string literal of `text` (quotes and backslashes escaped; `\xx` escapes written as given in `raw`). */
const watText = (text: string): string => text.replaceAll('\\', '\\\\').replaceAll('"', '\\"');

interface Variant {
  envelope?: string;
  /** The content as a WAT data string (may hold `\ff`-style escapes). */
  contentWat?: string;
  envelopePtr?: number;
  envelopeLen?: number;
  contentPtr?: number;
  contentLen?: number;
  count?: number;
}

/** The raw-artifact guest, edited as `variant` says. */
function guest(variant: Variant = {}): Uint8Array {
  const envelope = variant.envelope ?? '{"requestId":1,"path":"a.txt","binary":false,"length":5}';
  const setGlobal = (wat: string, name: string, value: number | undefined): string =>
    value === undefined ? wat : wat.replace(new RegExp(`\\(global \\$${name} i32 \\(i32\\.const -?\\d+\\)\\)`), `(global $${name} i32 (i32.const ${value}))`);
  return loadPortableWatFixture('raw-artifact', (wat) => {
    let edited = wat
      .replace(/\(data \(i32\.const 1024\) "[^\n]*"\)/, `(data (i32.const 1024) "${watText(envelope)}")`)
      .replace('(data (i32.const 2048) "hello")', `(data (i32.const 2048) "${variant.contentWat ?? 'hello'}")`);
    edited = setGlobal(edited, 'envelope_len', variant.envelopeLen ?? Buffer.byteLength(envelope));
    edited = setGlobal(edited, 'envelope_ptr', variant.envelopePtr);
    edited = setGlobal(edited, 'content_ptr', variant.contentPtr);
    edited = setGlobal(edited, 'content_len', variant.contentLen);
    return setGlobal(edited, 'count', variant.count);
  });
}

async function open(module: Uint8Array, isolation: WasmTransportOptions['isolation'], limits: WasmTransportOptions['limits'] = {}) {
  const arrived: JsonRpcMessage[] = [];
  const transport = await createWasmTransport({ name: 'raw', module, isolation, spawnWorker, limits });
  transport.onMessage((message) => void arrived.push(message));
  return { transport, client: createTestClient(transport), arrived };
}

/** The call fails with `code`, its message matching `pattern`, and closes the transport. */
async function refused(variant: Variant, isolation: WasmTransportOptions['isolation'], code: string, pattern: RegExp, limits: WasmTransportOptions['limits'] = {}): Promise<JsonRpcMessage[]> {
  const { transport, client, arrived } = await open(guest(variant), isolation, limits);
  try {
    const error = await rejection(client.request(1, 'generate'));
    assert.is(codeOf(error), code, String(error));
    assert.match((error as Error).message, pattern);
    assert.is(codeOf(await client.closed), code);
    if (variant.count === undefined) assert.not.ok(arrived.some((m) => m.method === 'morphir.backend.artifact'), 'no artifact was delivered');
    return arrived;
  } finally {
    await transport.close();
  }
}

for (const isolation of ['inline', 'worker'] as const) {
  const Raw = suite(`wasm raw artifacts (mep_artifact) :: ${isolation}`);

  Raw('should deliver the artifact as the morphir.backend.artifact notification the JSON path gives, in order with the call\'s other messages', async () => {
    const { transport, client, arrived } = await open(guest(), isolation);
    try {
      assert.is((await client.request(1, 'generate')).result, null);
      assert.equal(
        arrived.map((m) => m.method ?? 'response'),
        ['morphir.log', 'morphir.backend.artifact', 'morphir.log', 'response'],
      );
      assert.equal(arrived[1], { jsonrpc: '2.0', method: 'morphir.backend.artifact', params: { requestId: 1, artifact: { path: 'a.txt', content: 'hello', binary: false } } });
    } finally {
      await transport.close();
    }
  });

  Raw('should carry text beyond ASCII and a binary artifact\'s base64 text as they are', async () => {
    const content = 'é€😀';
    const bytes = Buffer.from(content, 'utf8');
    const hex = [...bytes].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
    const { transport, client, arrived } = await open(guest({ envelope: `{"requestId":1,"path":"b.bin","binary":true,"length":${bytes.length}}`, contentWat: hex, contentLen: bytes.length }), isolation);
    try {
      await client.request(1, 'generate');
      assert.equal((arrived[1]?.params as { artifact: unknown }).artifact, { path: 'b.bin', content, binary: true });
    } finally {
      await transport.close();
    }
  });

  Raw('should refuse an envelope whose length is not the content\'s (a lying length) :: ERR_PROTOCOL', async () => {
    await refused({ envelope: '{"requestId":1,"path":"a.txt","binary":false,"length":6}' }, isolation, LocalErrorCode.Protocol, /declares 6 bytes of content where 5 came/);
  });

  Raw('should refuse an envelope without bytes (length 5, none sent) :: ERR_PROTOCOL', async () => {
    await refused({ contentLen: 0 }, isolation, LocalErrorCode.Protocol, /declares 5 bytes of content where 0 came/);
  });

  Raw('should refuse bytes without an envelope :: ERR_PROTOCOL', async () => {
    await refused({ envelopeLen: 0 }, isolation, LocalErrorCode.Protocol, /artifact's bytes through mep_artifact without an envelope/);
  });

  Raw('should refuse an envelope that is not exactly requestId, path, binary and length :: ERR_PROTOCOL', async () => {
    await refused({ envelope: '{"requestId":1,"path":"a.txt","binary":false,"length":5,"mode":"x"}' }, isolation, LocalErrorCode.Protocol, /not an object of exactly requestId, path, binary, length/);
    await refused({ envelope: '{"requestId":1,"path":"a.txt","binary":false}' }, isolation, LocalErrorCode.Protocol, /not an object of exactly/);
    await refused({ envelope: '["a.txt"]' }, isolation, LocalErrorCode.Protocol, /not an object of exactly/);
    await refused({ envelope: '{"requestId":1,' }, isolation, LocalErrorCode.Protocol, /envelope \(mep_artifact\) is not UTF-8 JSON/);
  });

  Raw('should refuse content that is not UTF-8 where text is declared :: ERR_PROTOCOL', async () => {
    await refused({ contentWat: 'he\\ff\\fe!' }, isolation, LocalErrorCode.Protocol, /content of its artifact "a\.txt" \(mep_artifact\) is not UTF-8/);
    // A lone surrogate as WTF-8 (what QuickJS writes for one) is not UTF-8 either.
    await refused({ contentWat: 'h\\ed\\a0\\80!' }, isolation, LocalErrorCode.Protocol, /is not UTF-8/);
  });

  Raw('should refuse a pointer or a length outside guest memory :: ERR_EXTENSION_CRASHED', async () => {
    await refused({ contentPtr: 131_070 }, isolation, LocalErrorCode.ExtensionCrashed, /mep_artifact \(its content\) points outside guest memory/);
    await refused({ envelopePtr: -8 }, isolation, LocalErrorCode.ExtensionCrashed, /mep_artifact \(its envelope\) points outside guest memory/);
    await refused({ contentLen: 200_000 }, isolation, LocalErrorCode.ExtensionCrashed, /points outside guest memory/);
  });

  Raw('should refuse an artifact over the message limit before copying it, envelope and content together :: ERR_LIMIT', async () => {
    // 57 + 50 bytes against a limit of 100 (the logs around it are 85): the two together are the message.
    const envelope = '{"requestId":1,"path":"a.txt","binary":false,"length":50}';
    await refused({ envelope, contentLen: 50 }, isolation, LocalErrorCode.Limit, /streamed artifact of 107 bytes, above its message size limit of 100/, { maxResponseBytes: 100 });
    // A negative length is 4 GiB, not a small number.
    await refused({ contentLen: -1 }, isolation, LocalErrorCode.Limit, /above its message size limit/);
  });

  Raw('should count an artifact for another request against the notification budget, as the JSON path does :: ERR_LIMIT', async () => {
    const envelope = '{"requestId":7,"path":"a.txt","binary":false,"length":5}';
    const arrived = await refused({ envelope, count: 200 }, isolation, LocalErrorCode.Limit, /budget of 4096 bytes/, { maxNotificationBytes: 4096 });
    assert.ok(arrived.length < 200);
  });

  Raw('should not count the running request\'s own artifacts against the notification budget', async () => {
    const { transport, client, arrived } = await open(guest({ count: 200 }), isolation, { maxNotificationBytes: 4096 });
    try {
      assert.is((await client.request(1, 'generate')).result, null);
      assert.is(arrived.filter((m) => m.method === 'morphir.backend.artifact').length, 200);
    } finally {
      await transport.close();
    }
  });

  Raw('should stop streaming when the request is cancelled between two artifacts, answer -32800, and serve the next call', async () => {
    const { transport, client, arrived } = await open(guest({ count: 100_000 }), isolation);
    try {
      let cancelled = false;
      transport.onMessage((message) => {
        if (message.method === 'morphir.backend.artifact' && !cancelled) {
          cancelled = true;
          transport.send({ jsonrpc: '2.0', method: '$/cancelRequest', params: { id: 1 } });
        }
      });
      const answer = await client.request(1, 'generate');
      assert.is((answer.error as { code: number } | undefined)?.code, -32800, JSON.stringify(answer));
      const streamed = arrived.filter((m) => m.method === 'morphir.backend.artifact').length;
      assert.ok(streamed >= 1 && streamed < 100_000, `${streamed} artifacts`);
      // The guest and its transport are sound: the next call streams again (up to its own cancel-free end).
      arrived.length = 0;
      cancelled = true;
      const next = client.request(2, 'generate');
      transport.cancel(2);
      assert.is(((await next).error as { code: number } | undefined)?.code, -32800);
    } finally {
      await transport.close();
    }
  });

  Raw.run();
}
