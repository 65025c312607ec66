import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { longDelay, MAX_TIMER_MS, setLongTimeout } from './long-timer.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const Timer = suite('setLongTimeout');

Timer('should not fire a timer longer than the platform holds at once :: overflow', async () => {
  let fired = 0;
  // A plain setTimeout of these fires after 1 ms (Node's TimeoutOverflowWarning).
  const cancels = [MAX_TIMER_MS + 1, MAX_TIMER_MS + 2_000, 3_000_000_000, Number.MAX_SAFE_INTEGER].map((ms) => setLongTimeout(() => fired++, ms));
  await tick(60);
  for (const cancel of cancels) cancel();
  assert.is(fired, 0);
});

Timer('should fire short timers, never an infinite one, and not after cancel', async () => {
  const fired: string[] = [];
  setLongTimeout(() => fired.push('5'), 5);
  setLongTimeout(() => fired.push('nan'), Number.NaN);
  setLongTimeout(() => fired.push('negative'), -10);
  const never = setLongTimeout(() => fired.push('infinity'), Infinity);
  const cancelled = setLongTimeout(() => fired.push('cancelled'), 10);
  cancelled();
  cancelled();
  await tick(40);
  never();
  assert.equal(fired.sort(), ['5', 'nan', 'negative']);
});

Timer('should settle a delay with its value, or reject with what it throws', async () => {
  assert.is(await longDelay(1, () => 'done').promise, 'done');
  await longDelay(1, () => {
    throw new Error('late');
  }).promise.then(
    () => assert.unreachable('it should reject'),
    (error: Error) => assert.is(error.message, 'late'),
  );
});

Timer.run();
