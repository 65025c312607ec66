import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { createTestClient, openFixture, rejection, type TestClient } from '../../../../fixtures/wasm/test-client.ts';

// Inline isolation: a big call's message is released by the guest (`mep_release`) once the host's
// thread is idle after the answer, not at the start of the next call. release-trap answers every
// call with id 1 and traps only when asked to release, which makes each release visible.
const test = suite('inline release of a big call\'s message');

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);
/** Params big enough that the host asks the guest to release the message after answering. */
const BIG_PARAMS = { data: 'x'.repeat(300 * 1024) };
/** A few turns of the event loop: an idle thread. */
const idle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));
const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/** Runs `steps` on a client of an inline release-trap transport, closed afterwards. */
async function onReleaseTrap(steps: (client: TestClient) => Promise<void>): Promise<void> {
  const transport = await openFixture('release-trap', 'inline');
  try {
    await steps(createTestClient(transport));
  } finally {
    await transport.close();
  }
}

test('should release a big call\'s message once the thread is idle, so a guest that traps releasing fails the next call :: ERR_EXTENSION_CRASHED', async () => {
  await onReleaseTrap(async (client) => {
    assert.is((await client.request(1, 'generate', BIG_PARAMS)).result, null);
    await idle();
    const error = await rejection(client.request(1, 'ping'));
    assert.is(codeOf(error), LocalErrorCode.ExtensionCrashed);
    assert.match((error as Error).message, /failed while releasing its last message/);
  });
});

test('should not release when the next call comes before the thread is idle (the guest frees the message itself then)', async () => {
  await onReleaseTrap(async (client) => {
    for (let i = 0; i < 3; i++) {
      // Sent as soon as the answer arrived: no turn of the event loop in between.
      assert.is((await client.request(1, 'generate', BIG_PARAMS)).result, null);
    }
    assert.is((await client.request(1, 'ping')).result, null);
  });
});

test('should not release after a small call', async () => {
  await onReleaseTrap(async (client) => {
    assert.is((await client.request(1, 'ping')).result, null);
    await idle();
    assert.is((await client.request(1, 'ping')).result, null);
  });
});

test('should drop a release still waiting for an idle thread when the transport closes, leaving no timer', async () => {
  const before = timers();
  const transport = await openFixture('release-trap', 'inline');
  const client = createTestClient(transport);
  assert.is((await client.request(1, 'generate', BIG_PARAMS)).result, null);
  await transport.close();
  assert.is(await client.closed, undefined);
  assert.is(timers(), before);
  await idle();
});

test.run();
