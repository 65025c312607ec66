import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createStreamWindow } from './stream-window.ts';

const Window = suite('session :: stream window');

/** A promise and the functions that settle it. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

Window('should hold back past either bound and open once the sink is back under both', async () => {
  const window = createStreamWindow({ maxBytes: 100, maxArtifacts: 2 });
  const a = deferred();
  const b = deferred();
  const c = deferred();
  assert.is(window.take(10, a.promise), undefined);
  assert.is(window.take(10, b.promise), undefined);
  const held = window.take(10, c.promise);
  assert.ok(held instanceof Promise, 'a third artifact is over the count');
  let opened = false;
  void held?.then(() => (opened = true));
  a.resolve();
  await turn();
  assert.ok(opened, 'back at two in hand');
  const big = deferred();
  const overBytes = window.take(200, big.promise);
  assert.ok(overBytes instanceof Promise, 'one artifact over the bytes');
  let bigOpened = false;
  void overBytes?.then(() => (bigOpened = true));
  b.resolve();
  c.resolve();
  await turn();
  assert.not.ok(bigOpened, 'still over the bytes while the big one is in hand');
  big.reject(new Error('disk full'));
  await turn();
  assert.ok(bigOpened, 'a failed write counts as done');
  await window.settled();
});

Window('should open every hold at release, and settle only when all work has', async () => {
  const window = createStreamWindow({ maxArtifacts: 0 });
  const a = deferred();
  const held = window.take(1, a.promise) as Promise<void>;
  window.release();
  await held;
  let settled = false;
  void window.settled().then(() => (settled = true));
  await turn();
  assert.not.ok(settled, 'the write is still in hand');
  a.resolve();
  await turn();
  assert.ok(settled);
});

Window.run();
