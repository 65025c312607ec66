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

/**
 * Runs `run`, counting the characters handed to the ways JavaScript searches a string for a line
 * end (String search/indexOf, RegExp exec/search/test), from where each search starts.
 */
function countScanned(run: () => void): number {
  let scanned = 0;
  const from = (text: unknown, start: number): void => void (typeof text === 'string' && (scanned += Math.max(0, text.length - start)));
  const wrap = <T extends object>(owner: T, key: keyof T, startOf: (self: unknown, args: unknown[]) => [unknown, number]): (() => void) => {
    const real = owner[key] as (...args: unknown[]) => unknown;
    Object.defineProperty(owner, key, { configurable: true, writable: true, value: function (this: unknown, ...args: unknown[]) {
      from(...startOf(this, args));
      return real.apply(this, args);
    } });
    return () => Object.defineProperty(owner, key, { configurable: true, writable: true, value: real });
  };
  const restore = [
    wrap(String.prototype, 'search', (self) => [self, 0]),
    wrap(String.prototype, 'indexOf', (self, args) => [self, Number(args[1] ?? 0)]),
    wrap(RegExp.prototype, 'exec', (self, args) => [args[0], (self as RegExp).global || (self as RegExp).sticky ? (self as RegExp).lastIndex : 0]),
    wrap(RegExp.prototype, 'test', (self, args) => [args[0], (self as RegExp).global || (self as RegExp).sticky ? (self as RegExp).lastIndex : 0]),
    wrap(RegExp.prototype, Symbol.search as keyof RegExp, (_self, args) => [args[0], 0]),
  ];
  try {
    run();
  } finally {
    for (const undo of restore.reverse()) undo();
  }
  return scanned;
}

Sse('should look at each character of a long line once, however many chunks it comes in (a server sending a long event slowly) :: linear', () => {
  // An 8 MiB data line in 64 KiB chunks, as fetch hands them over: before, every chunk searched the
  // whole line so far for its end (quadratic: 32 MiB took 103 s of the host's event loop, load 26).
  const chunk = 'x'.repeat(64 * 1024);
  const seen: string[] = [];
  const decoder = createSseDecoder((data) => seen.push(data), 64 * 1024 * 1024);
  const scanned = countScanned(() => {
    decoder.push('data: ');
    for (let i = 0; i < 128; i++) decoder.push(chunk);
    decoder.push('\n\n');
  });
  assert.is(seen.length, 1);
  assert.is(seen[0]?.length, 128 * chunk.length);
  assert.ok(scanned <= 2 * 128 * chunk.length, `${scanned} characters searched for a line end in a line of ${128 * chunk.length}`);
});

Sse('should decode a stream the same however it is cut, empty chunks and CR, LF, CRLF line ends included (seeded)', () => {
  let seed = 31;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const ends = ['\n', '\r', '\r\n'];
  for (let round = 0; round < 300; round++) {
    let stream = '';
    for (let i = random(12); i >= 0; i--) {
      const kind = random(4);
      stream += (kind === 0 ? '' : kind === 1 ? ': c' : `data:${random(2) ? ' ' : ''}{"n":${random(1000)}}`) + ends[random(3)];
    }
    stream += '\n\n';
    const whole: string[] = [];
    createSseDecoder((data) => whole.push(data), 1 << 20).push(stream);
    const cut: string[] = [];
    const decoder = createSseDecoder((data) => cut.push(data), 1 << 20);
    for (let at = 0; at < stream.length; ) {
      const next = Math.min(stream.length, at + random(5));
      decoder.push(stream.slice(at, next));
      at = next;
    }
    assert.equal(cut, whole, JSON.stringify(stream));
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
