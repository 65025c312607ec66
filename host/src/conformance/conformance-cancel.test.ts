/**
 * The conformance case for cancellation against one extension source built to both runtimes:
 * an extension that polls ctx.cancelled passes in both; one that never does fails as a process
 * (the wasm sandbox interrupts any guest, so there it passes too).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCancellable } from '../../../fixtures/testing/cancellable.ts';
import { openTransport, specFromPath } from '../registry/launch.ts';
import { runConformance } from './runner.ts';

const CASE = 'a cancelled request answers -32800 within the bound';

async function outcome(path: string): Promise<{ status: string; reason?: string }> {
  const results = await runConformance({ open: () => openTransport(specFromPath(path, { killGraceMs: 200 })), filter: CASE, caseTimeoutMs: 60_000 });
  assert.is(results.length, 1);
  return results[0];
}

const Cancel = suite('conformance :: cancellation');

for (const runtime of ['process', 'wasm'] as const) {
  Cancel(`should pass an extension that polls ctx.cancelled (${runtime})`, async () => {
    const built = await buildCancellable();
    const result = await outcome(runtime === 'wasm' ? built.wasm : built.mjs);
    assert.is(result.status, 'passed', result.reason);
  });
}

Cancel('should fail a process extension that advertises cancellation but keeps working', async () => {
  const { mjs } = await buildCancellable({ stubborn: true });
  const result = await outcome(mjs);
  assert.is(result.status, 'failed');
  assert.match(result.reason ?? '', /did not answer within 2000 ms of \$\/cancelRequest/);
});

Cancel('should pass the same stubborn source in wasm, where the sandbox interrupts it', async () => {
  const { wasm } = await buildCancellable({ stubborn: true });
  const result = await outcome(wasm);
  assert.is(result.status, 'passed', result.reason);
});

Cancel.run();
