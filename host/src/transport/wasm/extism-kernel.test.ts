import { suite } from "uvu";
import * as assert from "uvu/assert";
import { isMepError, LocalErrorCode } from "../../protocol/errors.ts";
import { HOST_BOUNDS } from "../../protocol/limits.ts";
import { loadEditedWatFixture } from "../../../../fixtures/wasm/compile.ts";
import {
  createTestClient,
  rejection,
} from "../../../../fixtures/wasm/test-client.ts";
import { createWasmTransport } from "./index.ts";
import { createNodeWasmWorkerSpawner } from "./node/worker.ts";

const spawnWorker = createNodeWasmWorkerSpawner();

/** The guest setting `count` Extism variables with keys (and values) of `size` bytes each. */
const varFlood = (count: number, size: number): Uint8Array =>
  loadEditedWatFixture("var-flood", (wat) =>
    wat
      .replace(
        /\(global \$size i64 \(i64\.const \d+\)\)/,
        `(global $size i64 (i64.const ${size}))`,
      )
      .replace(
        /\(global \$count i32 \(i32\.const \d+\)\)/,
        `(global $count i32 (i32.const ${count}))`,
      ),
  );

for (const isolation of ["inline", "worker"] as const) {
  const Vars = suite(`wasm Extism kernel (variables, error_set) :: ${isolation}`);

  Vars(
    "should bound the Extism variables an instance keeps, keys and values together, naming the limit :: ERR_LIMIT :: vars",
    async () => {
      // The SDK kept every key of var_set as a string for the instance's life, counted by nothing:
      // 20 keys of 16 MiB (one block reused) left 335 MB on the host's heap after one call, and a
      // guest calling again with new keys grew it by that much each time (3 GB a call at the
      // default deadline), outside the memory cap, the worker's included.
      const transport = await createWasmTransport({
        name: "vars",
        module: varFlood(8, 1024 * 1024),
        isolation,
        spawnWorker,
        log: () => {},
      });
      try {
        const client = createTestClient(transport);
        const error = await rejection(client.request(1, "flood"));
        assert.ok(isMepError(error), String(error));
        assert.is(error.code, LocalErrorCode.Limit, error.message);
        assert.is(
          (error.data as { limit?: unknown }).limit,
          "maxExtismVarBytes",
        );
        assert.match(error.message, "vars");
      } finally {
        await transport.close();
      }
    },
  );

  Vars("should keep variables within the bound, as Extism does", async () => {
    const size = Math.floor(HOST_BOUNDS.maxExtismVarBytes / 8);
    const transport = await createWasmTransport({
      name: "vars",
      module: varFlood(2, size),
      isolation,
      spawnWorker,
      log: () => {},
    });
    try {
      const client = createTestClient(transport);
      assert.is((await client.request(1, "flood")).result, null);
      assert.is((await client.request(1, "flood")).result, null);
    } finally {
      await transport.close();
    }
  });
  Vars('should hold an error_set message to the message size limit, as an answer is :: ERR_LIMIT :: error-set', async () => {
    // error_set's text went whole into the error's message and its data: 100 MB set under a
    // 1 MiB maxResponseBytes came back as a 200 MB answer (the host at 1.5 GB RSS).
    const module = loadEditedWatFixture('error-flood', (wat) => wat.replace(/\(global \$size i64 \(i64\.const \d+\)\)/, '(global $size i64 (i64.const 2097152))'));
    const transport = await createWasmTransport({ name: 'errors', module, isolation, spawnWorker, limits: { maxResponseBytes: 1024 * 1024 }, log: () => {} });
    try {
      const error = await rejection(createTestClient(transport).request(1, 'fail'));
      assert.ok(isMepError(error), String(error));
      assert.is(error.code, LocalErrorCode.Limit, error.message.slice(0, 200));
      assert.is((error.data as { limit?: unknown }).limit, 'maxResponseBytes');
      assert.ok(JSON.stringify({ message: error.message, data: error.data }).length < 4096);
    } finally {
      await transport.close();
    }
  });
  Vars('should hand out config_get blocks through the metered alloc, at most maxExtismBlocks a call :: config', async () => {
    // The SDK stored each config_get answer in a new block no meter counted: 3,000,000 reads of
    // one entry in one call took the host to 1.4 GB RSS (750 MB of heap) before the deadline.
    const reads = (count: number): Uint8Array => loadEditedWatFixture('config-flood', (wat) => wat.replace(/\(global \$count i32 \(i32\.const \d+\)\)/, `(global $count i32 (i32.const ${count}))`));
    for (const [count, every] of [[100, true], [HOST_BOUNDS.maxExtismBlocks + 10, false]] as const) {
      const transport = await createWasmTransport({ name: 'config', module: reads(count), isolation, spawnWorker, grants: { sourceDateEpoch: 0 }, log: () => {} });
      try {
        assert.is((await createTestClient(transport).request(1, 'read')).result, every, `${count} reads`);
      } finally {
        await transport.close();
      }
    }
  });
  Vars.run();
}
