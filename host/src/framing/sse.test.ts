import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createSseDecoder, encodeSseEvent } from './sse.ts';

const Sse = suite('framing/sse :: createSseDecoder');

Sse('should join data lines of one event and skip event, id, retry and comments', () => {
  const seen: string[] = [];
  const decoder = createSseDecoder((data) => seen.push(data), 1024);
  decoder.push(': keep-alive\nevent: message\nid: 7\nretry: 10\ndata: {"a":\ndata: 1}\n\n');
  assert.equal(seen, ['{"a":\n1}']);
});

Sse('should decode events split anywhere, CRLF split between chunks included, and multibyte text', () => {
  const text = `${encodeSseEvent('{"x":"é✓"}')}data: two\r\n\r\n`;
  for (let cut = 1; cut < text.length; cut++) {
    const seen: string[] = [];
    const decoder = createSseDecoder((data) => seen.push(data), 1024);
    decoder.push(text.slice(0, cut));
    decoder.push(text.slice(cut));
    assert.equal(seen, ['{"x":"é✓"}', 'two'], `cut at ${cut}`);
  }
});

Sse('should refuse an event longer than the limit with ERR_LIMIT, and a line that never ends', () => {
  for (const input of [`data: ${'x'.repeat(40)}\ndata: ${'y'.repeat(40)}\n`, 'data: '.padEnd(200, 'z')]) {
    const decoder = createSseDecoder(() => undefined, 64);
    try {
      decoder.push(input);
      assert.unreachable('accepted an event past the limit');
    } catch (error) {
      assert.ok(isMepError(error));
      assert.is(error.code, LocalErrorCode.Limit);
    }
  }
});

Sse.run();
