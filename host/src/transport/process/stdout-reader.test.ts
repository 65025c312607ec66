import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { createContentLengthDecoder, encodeContentLength } from '../../framing/content-length.ts';
import type { MepError } from '../../protocol/errors.ts';
import { readStdout } from './stdout-reader.ts';

const Stdout = suite('readStdout :: CPU per frame');

Stdout('should let the event loop turn while it parses a frame of 600,000 empty objects, and report the frames after it and the end in order', async () => {
  const stream = new PassThrough();
  const seen: string[] = [];
  const errors: MepError[] = [];
  const ended = new Promise<void>((resolve) => {
    readStdout(stream, {
      name: 'flood',
      decoder: createContentLengthDecoder({ name: 'flood' }),
      isClosed: () => false,
      onMessage: (message) => seen.push(String(message.method)),
      onError: (error) => errors.push(error),
      onEnd: () => (seen.push('end'), resolve()),
    });
  });
  const big = `{"jsonrpc":"2.0","method":"big","params":{"pad":[${'{},'.repeat(600_000)}{}]}}`;
  stream.end(Buffer.concat([encodeContentLength(big), encodeContentLength('{"jsonrpc":"2.0","method":"small"}')]));
  // Turns of the loop until the big frame was read: it comes in several chunks.
  while (stream.readableLength > 0) await new Promise((resolve) => setImmediate(resolve));
  seen.push('a turn');
  await ended;
  // Before, JSON.parse held the loop for the whole frame: both were delivered before anything else ran.
  assert.equal(seen, ['a turn', 'big', 'small', 'end']);
  assert.equal(errors, []);
});

Stdout('should end the session on a frame that is not JSON, and deliver nothing after it :: ERR_FRAMING', async () => {
  const stream = new PassThrough();
  const seen: string[] = [];
  const errors: MepError[] = [];
  readStdout(stream, {
    name: 'broken',
    decoder: createContentLengthDecoder({ name: 'broken' }),
    isClosed: () => errors.length > 0,
    onMessage: (message) => seen.push(String(message.method)),
    onError: (error) => errors.push(error),
    onEnd: () => undefined,
  });
  stream.write(Buffer.concat([encodeContentLength('{"jsonrpc":"2.0","method":"first"}'), encodeContentLength('{nope'), encodeContentLength('{"jsonrpc":"2.0","method":"after"}')]));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(seen, ['first']);
  assert.equal(errors.map((error) => error.code), ['ERR_FRAMING']);
  stream.destroy();
});

Stdout.run();
