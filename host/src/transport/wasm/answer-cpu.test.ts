import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestClient, openFixture } from '../../../../fixtures/wasm/test-client.ts';
import type { MepError } from '../../protocol/errors.ts';
import type { JsonRpcMessage } from '../types.ts';
import { createGuestMessages } from './guest-messages.ts';
import { DEFAULT_WASM_LIMITS } from './limits.ts';
import { createOutcomeSettler } from './settle-outcome.ts';
import { createGuestRequestRouter } from './guest-requests.ts';
import type { GuestRunner } from './runner.ts';

const Answers = suite('wasm guest answers :: CPU per answer');
const OBJECTS = 600_000;
const answerOf = (id: number): Uint8Array => new TextEncoder().encode(`{"jsonrpc":"2.0","id":${id},"result":[${'{},'.repeat(OBJECTS - 1)}{}]}`);

Answers('should let the event loop turn while it parses an answer of 600,000 empty objects, then emit it', async () => {
  const order: string[] = [];
  const failures: MepError[] = [];
  const settle = createOutcomeSettler({
    name: 'empty-objects',
    limits: DEFAULT_WASM_LIMITS,
    messages: createGuestMessages('empty-objects'),
    emit: (message: JsonRpcMessage) => order.push(`answer ${String(message.id)} of ${(message.result as unknown[]).length}`),
    fail: (error) => failures.push(error),
  });
  const settled = settle(1, { ok: true, output: answerOf(1), interrupt: 0, elapsedMs: 1 }, false);
  setImmediate(() => order.push('a turn'));
  await settled;
  // Before, JSON.parse held the loop for the whole answer: it was emitted before anything else ran.
  assert.equal(order, ['a turn', `answer 1 of ${OBJECTS}`]);
  assert.equal(failures, []);
});

Answers('should answer requests in order through the worker when the first answer is large', async () => {
  const transport = await openFixture('empty-objects', 'worker');
  try {
    const client = createTestClient(transport);
    const first = client.request(1, 'ping');
    const second = client.request(2, 'ping');
    const answered: string[] = [];
    await Promise.all([first.then(() => answered.push('1')), second.then(() => answered.push('2'), () => answered.push('2 failed'))]);
    assert.equal(((await first).result as unknown[]).length, OBJECTS);
    // The fixture answers every request as id 1: the second is a protocol error, after the first.
    assert.equal(answered, ['1', '2 failed']);
  } finally {
    await transport.close();
  }
});

Answers('should let the event loop turn while it parses a large answer of an inline guest too (same sliced parse as the worker)', async () => {
  const transport = await openFixture('empty-objects', 'inline');
  try {
    const client = createTestClient(transport);
    // An inline guest runs on this thread: the loop cannot turn while it runs, only while its answer is parsed.
    let turns = 0;
    let answered = false;
    const spin = (): void => {
      if (answered) return;
      turns++;
      setImmediate(spin);
    };
    const answer = client.request(1, 'ping');
    setImmediate(spin);
    const result = (await answer).result as unknown[];
    answered = true;
    assert.is(result.length, OBJECTS);
    // 600,000 values in slices of SLICE_VALUES (16,384): a turn between slices (measured 22). One JSON.parse: none.
    assert.ok(turns >= 10, `${turns} turns of the event loop while the answer was parsed`);
  } finally {
    await transport.close();
  }
});

Answers.run();

const Notifications = suite('wasm guest notifications :: CPU per message');
const bigNotification = new TextEncoder().encode(`{"jsonrpc":"2.0","method":"test.big","params":[${'{},'.repeat(OBJECTS - 1)}{}]}`);

Notifications('should let the event loop turn while it parses a notification of 600,000 empty objects from a worker guest, then emit it', async () => {
  const order: string[] = [];
  const router = createGuestRequestRouter({
    messages: createGuestMessages('empty-objects'),
    emit: (message) => order.push(`${String(message.method)} of ${(message.params as unknown[]).length}`),
    fail: (error) => order.push(`failed: ${error.message}`),
    isClosed: () => false,
    runner: () => ({ canWaitForReply: true }) as GuestRunner,
    budget: { name: 'empty-objects', maxNotificationBytes: 64 * 1024 * 1024, runningId: () => 1 },
  });
  const delivered = router.callbacks.onNotifySliced!(bigNotification);
  setImmediate(() => order.push('a turn'));
  await delivered;
  // Before, one JSON.parse on the host's thread: emitted before anything else ran.
  assert.equal(order, ['a turn', `test.big of ${OBJECTS}`]);
});

Notifications('should deliver a worker guest\'s large notification, the small one after it and its answer in the order sent', async () => {
  const transport = await openFixture('empty-objects-notify', 'worker');
  try {
    const client = createTestClient(transport);
    const answer = await client.request(1, 'ping');
    assert.is(answer.result, null);
    assert.equal(client.seen.map((m) => ('method' in m ? m.method : `answer ${String(m.id)}`)), ['test.big', 'test.small', 'answer 1']);
    assert.is((client.seen[0].params as unknown[]).length, OBJECTS);
  } finally {
    await transport.close();
  }
});

Notifications.run();
