import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { createStreamWriter } from './stream-writer.ts';

/** A writable that holds what it is given until `drain()`, like a pipe nobody reads. */
function slowStream() {
  const events = new EventEmitter();
  const written: string[] = [];
  let pending = 0;
  return {
    written,
    get writableLength() {
      return pending;
    },
    write(chunk: string) {
      written.push(chunk);
      pending += Buffer.byteLength(chunk);
      return pending < 16_384;
    },
    on: (event: 'error', listener: (error: Error) => void) => events.on(event, listener),
    once: (event: 'drain', listener: () => void) => events.once(event, listener),
    /** The reader took everything. */
    drain() {
      pending = 0;
      events.emit('drain');
    },
    fail(code: string) {
      events.emit('error', Object.assign(new Error(code), { code }));
    },
  };
}

const Writer = suite('createStreamWriter');

Writer('should drop log lines past the cap, count them, and say so once the stream drains', () => {
  const stream = slowStream();
  const writer = createStreamWriter(stream, { highWaterBytes: 100, logCapBytes: 200 });
  for (let i = 0; i < 10; i++) writer.log('x'.repeat(99));
  // 3 lines (300 bytes) got through before the cap; 7 were dropped.
  assert.is(stream.written.length, 3);
  assert.is(writer.dropped, 7 * 100);
  assert.ok(writer.busy());
  writer.line('the result'); // the command's own lines are never dropped
  assert.is(stream.written.at(-1), 'the result\n');
  stream.drain();
  assert.match(stream.written.at(-1) ?? '', /^mep: 700 bytes of extension log dropped/);
  assert.not.ok(writer.busy());
  writer.log('after');
  assert.is(stream.written.at(-1), 'after\n');
});

Writer('should call drain listeners once the reader catches up, and at once when it is not behind', () => {
  const stream = slowStream();
  const writer = createStreamWriter(stream, { highWaterBytes: 10 });
  let calls = 0;
  writer.onDrain(() => calls++);
  assert.is(calls, 1);
  writer.log('a line longer than ten bytes');
  writer.onDrain(() => calls++);
  assert.is(calls, 1);
  stream.drain();
  assert.is(calls, 2);
});

Writer('should stop writing after a stream error (EPIPE, ENOBUFS) instead of throwing, and release waiters', () => {
  const stream = slowStream();
  const writer = createStreamWriter(stream, { highWaterBytes: 10 });
  writer.log('a line longer than ten bytes');
  let released = false;
  writer.onDrain(() => (released = true));
  stream.fail('EPIPE');
  assert.ok(writer.failed);
  assert.ok(released);
  const before = stream.written.length;
  writer.line('lost');
  writer.log('lost');
  assert.is(stream.written.length, before);
  assert.not.ok(writer.busy());
});

Writer('should treat a stream that throws on write as failed', () => {
  const stream = { ...slowStream(), write: () => { throw Object.assign(new Error('EBADF'), { code: 'EBADF' }); } };
  const writer = createStreamWriter(stream);
  writer.line('x');
  assert.ok(writer.failed);
});

Writer.run();
