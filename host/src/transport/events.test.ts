import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createTransportEvents, listenerSet } from './events.ts';

const Events = suite('createTransportEvents');

Events('should deliver to every listener even when one throws, and report the throw', () => {
  const reported: unknown[] = [];
  const events = createTransportEvents((e) => reported.push(e));
  const seen: string[] = [];
  events.onMessage(() => {
    throw new Error('bad listener');
  });
  events.onMessage((m) => seen.push(String(m.method)));
  events.emitMessage({ method: 'a' });
  assert.equal(seen, ['a']);
  assert.is((reported[0] as Error).message, 'bad listener');
});

Events('should close once, drop listeners, and tell late close listeners on a microtask', async () => {
  const events = createTransportEvents();
  const closes: unknown[] = [];
  events.onClose((e) => closes.push(e?.code));
  const seen: unknown[] = [];
  events.onMessage((m) => seen.push(m));
  const error = new MepError(LocalErrorCode.ExtensionCrashed, 'gone');
  assert.is(events.emitClose(error), true);
  assert.is(events.emitClose(), false);
  events.emitMessage({ method: 'late' });
  assert.equal(seen, []);
  assert.equal(closes, [LocalErrorCode.ExtensionCrashed]);
  const late = await new Promise((resolve) => events.onClose(resolve));
  assert.is(late, error);
  assert.is(events.closeError, error);
});

Events('should stop delivering to a disposed listener', () => {
  const events = createTransportEvents();
  const seen: unknown[] = [];
  const dispose = events.onMessage((m) => seen.push(m));
  dispose();
  events.emitMessage({ method: 'x' });
  assert.equal(seen, []);
});
Events.run();

const Listeners = suite('listenerSet');

Listeners('should call the listeners of the round it started with, in order, and forget a disposed one', () => {
  const set = listenerSet<(n: number) => void>();
  const seen: string[] = [];
  let disposeB = (): void => undefined;
  set.add((n) => {
    seen.push(`a${n}`);
    disposeB(); // removed during the round: still called in this round
    set.add((m) => seen.push(`late${m}`)); // added during the round: not called in this round
  });
  disposeB = set.add((n) => seen.push(`b${n}`));
  set.emit(1);
  assert.equal(seen, ['a1', 'b1']);
  assert.is(set.size, 2);
  set.clear();
  set.emit(2);
  assert.equal(seen, ['a1', 'b1']);
  assert.is(set.size, 0);
});

Listeners('should hand each listener to each, from a snapshot', () => {
  const set = listenerSet<() => string>();
  set.add(() => 'x');
  set.add(() => 'y');
  const got: string[] = [];
  set.each((listener) => got.push(listener()));
  assert.equal(got, ['x', 'y']);
});

Listeners.run();
