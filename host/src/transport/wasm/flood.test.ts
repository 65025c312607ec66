import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { HOST_BOUNDS } from '../../protocol/limits.ts';
import { loadEditedWatFixture, loadPortableWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { createTestClient, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { createWasmTransport, type WasmTransportOptions } from './index.ts';
import { createNodeWasmWorkerSpawner } from './node/worker.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
const spawnWorker = createNodeWasmWorkerSpawner();

/** The flood guest of `via` sending `count` messages of `size` bytes of text in one call. */
function flood(via: 'notify' | 'log', count: number, size: number): Uint8Array {
  const edit = (wat: string): string =>
    wat
      .replace(/\(global \$size (i32|i64) \((i32|i64)\.const \d+\)\)/, (_m, type: string) => `(global $size ${type} (${type}.const ${size}))`)
      .replace(/\(global \$count i32 \(i32\.const \d+\)\)/, `(global $count i32 (i32.const ${count}))`);
  return via === 'notify' ? loadPortableWatFixture('notify-flood', edit) : loadEditedWatFixture('log-flood', edit);
}

/** Opens `module`, counting the guest's notifications and log lines, in the order they arrive. */
async function open(module: Uint8Array, isolation: WasmTransportOptions['isolation'], limits: WasmTransportOptions['limits']) {
  const arrived: string[] = [];
  const transport = await createWasmTransport({
    name: 'flood',
    module,
    isolation,
    spawnWorker,
    limits,
    log: ({ message }) => void (/^guest memory/.test(message) || arrived.push('log')),
  });
  transport.onMessage((message) => arrived.push(message.method === undefined ? 'response' : 'notification'));
  return { transport, client: createTestClient(transport), arrived };
}

for (const isolation of ['inline', 'worker'] as const) {
  const Budget = suite(`wasm notification budget :: ${isolation}`);

  for (const via of ['notify', 'log'] as const) {
    Budget(`should stop a call whose ${via === 'notify' ? 'notifications' : 'Extism log lines'} pass maxNotificationBytes, naming the limit :: ERR_LIMIT`, async () => {
      // 64 messages of 16 KiB against a budget of 256 KiB: the 16th fits, the 17th does not.
      const { transport, client, arrived } = await open(flood(via, 64, 16 * 1024), isolation, { maxNotificationBytes: 256 * 1024 });
      try {
        const error = await rejection(client.request(1, 'flood'));
        assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
        assert.equal([(error as { data: { limit: string } }).data.limit], ['maxNotificationBytes']);
        assert.match((error as Error).message, /--max-notifications 512KiB/);
        assert.is(codeOf(await client.closed), LocalErrorCode.Limit);
        const kind = via === 'notify' ? 'notification' : 'log';
        assert.ok(arrived.length <= 16 && arrived.every((a) => a === kind), `${arrived.length} delivered: ${arrived.slice(0, 3)}`);
      } finally {
        await transport.close();
      }
    });

    Budget(`should deliver every ${via} message under the budget before the response, in order`, async () => {
      const { transport, client, arrived } = await open(flood(via, 300, 1024), isolation, {});
      try {
        assert.is((await client.request(1, 'flood')).result, null);
        assert.is(arrived.length, 301);
        assert.is(arrived.at(-1), 'response');
        assert.is(arrived.filter((a) => a === 'response').length, 1);
      } finally {
        await transport.close();
      }
    });
  }

  Budget('should count every Extism log line against maxNotificationBytes, an empty one too, naming the limit :: ERR_LIMIT :: empty-lines', async () => {
    // Lines were charged their characters only: 100,000 empty lines (3,000,000 in 6-12 s of the
    // host's CPU under the default deadline) passed a budget of 64 KiB, each still a message the
    // host delivers and prints. Each line costs its characters and HOST_BOUNDS.logLineBytes.
    const { transport, client, arrived } = await open(flood('log', 100_000, 0), isolation, { maxNotificationBytes: 64 * 1024 });
    try {
      const error = await rejection(client.request(1, 'flood'));
      assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
      assert.equal((error as { data: { limit: string } }).data.limit, 'maxNotificationBytes');
      assert.ok(arrived.length <= (64 * 1024) / HOST_BOUNDS.logLineBytes, `${arrived.length} lines delivered`);
    } finally {
      await transport.close();
    }
  });

  Budget('should not count the artifacts the running request streams, and count those for another id :: ERR_LIMIT', async () => {
    const artifacts = (requestId: number): Uint8Array => {
      const prefix = `{"jsonrpc":"2.0","method":"morphir.backend.artifact","params":{"requestId":${requestId},"artifact":{"path":"a.txt","binary":false,"content":"`;
      const edit = (wat: string): string =>
        wat
          .replace(/\(global \$size i32 \(i32\.const \d+\)\)/, '(global $size i32 (i32.const 16384))')
          .replace(/\(global \$count i32 \(i32\.const \d+\)\)/, '(global $count i32 (i32.const 64))')
          .replace(/\(global \$prefix_len i32 \(i32\.const \d+\)\)/, `(global $prefix_len i32 (i32.const ${prefix.length}))`)
          .replace(/\(global \$suffix_len i32 \(i32\.const \d+\)\)/, '(global $suffix_len i32 (i32.const 4))')
          .replace(/\(data \(i32\.const 1024\) "[^\n]*"\)/, `(data (i32.const 1024) "${prefix.replaceAll('"', '\\"')}")`)
          .replace('(data (i32.const 256) "\\"}}")', '(data (i32.const 256) "\\"}}}")');
      return loadPortableWatFixture('notify-flood', edit);
    };
    // 1 MiB of the running request's artifacts against a budget of 256 KiB: all delivered.
    const own = await open(artifacts(1), isolation, { maxNotificationBytes: 256 * 1024 });
    try {
      assert.is((await own.client.request(1, 'generate')).result, null);
      assert.is(own.arrived.filter((a) => a === 'notification').length, 64);
    } finally {
      await own.transport.close();
    }
    const other = await open(artifacts(2), isolation, { maxNotificationBytes: 256 * 1024 });
    try {
      assert.is(codeOf(await rejection(other.client.request(1, 'generate'))), LocalErrorCode.Limit);
    } finally {
      await other.transport.close();
    }
  });

  /** The request-flood guest: `count` requests of `size` bytes of text to the host in one call, each answered at once. */
  const requests = async (count: number, size: number) => {
    const module = loadPortableWatFixture('request-flood', (wat) =>
      wat.replace(/\(global \$size i32 \(i32\.const \d+\)\)/, `(global $size i32 (i32.const ${size}))`).replace(/\(global \$count i32 \(i32\.const \d+\)\)/, `(global $count i32 (i32.const ${count}))`),
    );
    const opened = await open(module, isolation, { maxNotificationBytes: 256 * 1024 });
    let asked = 0;
    opened.transport.onMessage((message) => {
      if (message.method !== 'flood.pad') return;
      asked++;
      opened.transport.send({ jsonrpc: '2.0', id: message.id as number, error: { code: -32601, message: 'no such method' } });
    });
    return { ...opened, asked: () => asked };
  };

  Budget('should count the requests a guest sends the host against maxNotificationBytes, naming the limit :: ERR_LIMIT :: requests', async () => {
    // 64 requests of 16 KiB against a budget of 256 KiB: before, all 64 were decoded and answered
    // (and 2,000 of 1 MiB, 2 GB, were decoded in one call until its deadline).
    const { transport, client, asked } = await requests(64, 16 * 1024);
    try {
      const error = await rejection(client.request(1, 'flood'));
      assert.is(codeOf(error), LocalErrorCode.Limit, String(error));
      assert.is((error as { data: { limit: string } }).data.limit, 'maxNotificationBytes');
      assert.match((error as Error).message, /requests/);
      assert.ok(asked() <= 16, `${asked()} requests delivered past the budget`);
    } finally {
      await transport.close();
    }
  });

  Budget('should answer the requests a guest sends within its budget', async () => {
    const { transport, client, asked } = await requests(8, 16 * 1024);
    try {
      assert.is((await client.request(1, 'flood')).result, null);
      assert.is(asked(), 8);
    } finally {
      await transport.close();
    }
  });

  const twice = [
    ['mep_output_copy', () => loadPortableWatFixture('two-outputs')],
    ['output_set', () => loadEditedWatFixture('two-output-set', (wat) => wat)],
  ] as const;
  for (const [via, module] of twice) {
    Budget(`should refuse a second output in one call through ${via} :: ERR_PROTOCOL`, async () => {
      const { transport, client } = await open(module(), isolation, {});
      try {
        const error = await rejection(client.request(1, 'answer twice'));
        assert.is(codeOf(error), LocalErrorCode.Protocol);
        assert.equal((error as { data: { reason: string; via: string } }).data, { extension: 'flood', reason: 'second-output', via });
      } finally {
        await transport.close();
      }
    });
  }

  Budget('should still take one output through output_set (an Extism guest)', async () => {
    const once = loadEditedWatFixture('two-output-set', (wat) => wat.replace(/\n {4}\(call \$output_set \(call \$block \(i32\.const 64\)\) \(i64\.const 35\)\)/, ''));
    const { transport, client } = await open(once, isolation, {});
    try {
      assert.is((await client.request(1, 'answer once')).result, 1);
    } finally {
      await transport.close();
    }
  });

  Budget.run();
}
