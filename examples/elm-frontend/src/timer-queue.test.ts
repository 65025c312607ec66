import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTimerQueue } from './timer-queue.ts';

const Queue = suite('createTimerQueue');

Queue('should run timers by deadline, then in the order they were set', () => {
  const q = createTimerQueue();
  const ran: string[] = [];
  q.setTimeout(() => ran.push('late'), 10);
  q.setTimeout(() => ran.push('first'), 0);
  q.setTimeout(() => ran.push('second'));
  q.setTimeout(() => ran.push('middle'), 5);
  assert.equal(q.pending, 4);
  q.runUntil(() => false);
  assert.equal(ran, ['first', 'second', 'middle', 'late']);
  assert.equal(q.pending, 0);
});

Queue('should stop as soon as the condition holds and keep the rest', () => {
  const q = createTimerQueue();
  let n = 0;
  for (let i = 0; i < 5; i++) q.setTimeout(() => n++, 0);
  q.runUntil(() => n === 2);
  assert.is(n, 2);
  assert.is(q.pending, 3);
});

Queue('should run timers set by running timers, on the virtual clock', () => {
  const q = createTimerQueue();
  const ran: string[] = [];
  q.setTimeout(() => {
    ran.push('a');
    // Due at 100 + 0: before the one set earlier for 150.
    q.setTimeout(() => ran.push('c'), 0);
  }, 100);
  q.setTimeout(() => ran.push('d'), 150);
  q.setTimeout(() => ran.push('b'), 100);
  q.runUntil(() => false);
  assert.equal(ran, ['a', 'b', 'c', 'd']);
});

Queue('should not run a cleared timer, and ignore unknown ids', () => {
  const q = createTimerQueue();
  const ran: number[] = [];
  const id = q.setTimeout(() => ran.push(1), 0);
  q.setTimeout(() => ran.push(2), 0);
  q.clearTimeout(id);
  q.clearTimeout(12345);
  q.clearTimeout(undefined);
  q.runUntil(() => false);
  assert.equal(ran, [2]);
});

Queue('should pass extra arguments and treat a negative or missing delay as 0', () => {
  const q = createTimerQueue();
  const got: unknown[] = [];
  q.setTimeout((a, b) => got.push(a, b), -5, 'x', 2);
  q.runUntil(() => false);
  assert.equal(got, ['x', 2]);
});

Queue('should refuse a callback that is not a function', () => {
  const q = createTimerQueue();
  assert.throws(() => q.setTimeout('code' as never, 0), TypeError);
  assert.is(q.pending, 0);
});

Queue('should leave a timer whose callback throws out of the queue', () => {
  const q = createTimerQueue();
  const ran: number[] = [];
  q.setTimeout(() => {
    throw new Error('boom');
  }, 0);
  q.setTimeout(() => ran.push(1), 0);
  assert.throws(() => q.runUntil(() => false), /boom/);
  q.runUntil(() => false);
  assert.equal(ran, [1]);
});

Queue.run();
