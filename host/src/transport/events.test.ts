import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';
import { createTransportEvents } from './events.ts';

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
