import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createContentLengthDecoder, encodeContentLength } from './content-length.ts';
import { FREE_FRAMING_BYTES } from './frame-decoder.ts';

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);
const PING_BODY = '{"jsonrpc":"2.0","id":1,"method":"morphir.ping","params":{}}';
// The exact framing example of the MEP 0.1 draft (copied from shared/reference/mep-fixtures).
const fixture = new URL('../../../fixtures/mep/reference/18-ping.framed.bin', import.meta.url);

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    assert.ok(isMepError(error), 'throws a MepError');
    return (error as { code: unknown }).code;
  }
  assert.unreachable('expected a framing error');
}

const decode = suite('createContentLengthDecoder');


decode('should count header bytes past FREE_FRAMING_BYTES a frame as overhead, and none for a plain frame', () => {
  const decoder = createContentLengthDecoder({ name: 'x' });
  decoder.push(encodeContentLength(PING_BODY));
  assert.is(decoder.overheadBytes, 0);
  const pad = `X-Pad: ${'p'.repeat(991)}\r\n`;
  const frame = bytes(`${pad}Content-Length: ${PING_BODY.length}\r\n\r\n${PING_BODY}`);
  assert.equal(decoder.push(frame), [PING_BODY]);
  const header = frame.length - PING_BODY.length;
  assert.is(decoder.overheadBytes, header - FREE_FRAMING_BYTES);
});

decode('should decode the spec ping frame :: 60-byte fixture', () => {
  const frame = new Uint8Array(readFileSync(fixture));
  assert.equal(frame.length, 82);
  assert.equal(frame, bytes(`Content-Length: 60\r\n\r\n${PING_BODY}`));
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.equal(d.push(frame), [PING_BODY]);
  assert.is(d.bufferedBytes, 0);
  d.end();
});

decode('should decode a frame split at every byte offset', () => {
  const frame = encodeContentLength(PING_BODY);
  for (let cut = 0; cut <= frame.length; cut++) {
    const d = createContentLengthDecoder({ name: 'ext' });
    const got = [...d.push(frame.subarray(0, cut)), ...d.push(frame.subarray(cut))];
    assert.equal(got, [PING_BODY], `cut at ${cut}`);
  }
});

decode('should decode a frame fed one byte at a time', () => {
  const frame = encodeContentLength(PING_BODY);
  const d = createContentLengthDecoder({ name: 'ext' });
  const got: string[] = [];
  for (const b of frame) got.push(...d.push(Uint8Array.of(b)));
  assert.equal(got, [PING_BODY]);
});

decode('should decode two frames in one chunk', () => {
  const a = encodeContentLength('{"a":1}');
  const b = encodeContentLength('{"b":"two"}');
  const both = new Uint8Array(a.length + b.length);
  both.set(a);
  both.set(b, a.length);
  assert.equal(createContentLengthDecoder({ name: 'ext' }).push(both), ['{"a":1}', '{"b":"two"}']);
});

decode('should decode multibyte UTF-8 split inside a character', () => {
  const body = '{"text":"héllo 🌍 ✓"}';
  const frame = encodeContentLength(body);
  assert.ok(frame.length - 'Content-Length: 00\r\n\r\n'.length > body.length, 'length counts bytes');
  const emoji = frame.indexOf(0xf0);
  for (const cut of [emoji + 1, emoji + 2, emoji + 3]) {
    const d = createContentLengthDecoder({ name: 'ext' });
    assert.equal([...d.push(frame.subarray(0, cut)), ...d.push(frame.subarray(cut))], [body]);
  }
});

decode('should ignore extra headers and read names case-insensitively', () => {
  const body = '{"x":1}';
  const frame = bytes(`content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:   7\r\nX-Other: y\r\n\r\n${body}`);
  assert.equal(createContentLengthDecoder({ name: 'ext' }).push(frame), [body]);
});

decode('should decode an empty body', () => {
  assert.equal(createContentLengthDecoder({ name: 'ext' }).push(bytes('Content-Length: 0\r\n\r\n')), ['']);
});

decode('should refuse a repeated Content-Length', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.is(codeOf(() => d.push(bytes('Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}'))), LocalErrorCode.Framing);
});

decode('should refuse a missing Content-Length', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.is(codeOf(() => d.push(bytes('Content-Type: x\r\n\r\n{}'))), LocalErrorCode.Framing);
});

decode('should refuse invalid and negative lengths', () => {
  for (const value of ['-1', 'abc', '', '1.5', '+3', '0x10', '99999999999999999']) {
    const d = createContentLengthDecoder({ name: 'ext' });
    assert.is(codeOf(() => d.push(bytes(`Content-Length: ${value}\r\n\r\n{}`))), LocalErrorCode.Framing, value);
  }
});

decode('should refuse a header line ending in a bare LF', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.is(codeOf(() => d.push(bytes('Content-Length: 2\n\n{}'))), LocalErrorCode.Framing);
});

decode('should refuse a log line at its first bad byte, naming the extension and quoting it', () => {
  const d = createContentLengthDecoder({ name: 'org.example.noisy' });
  try {
    d.push(bytes('Starting server on port 80'));
    assert.unreachable('a log line must fail without waiting for a newline');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Framing);
    assert.equal((error.data as { extension: string }).extension, 'org.example.noisy');
    assert.ok(error.message.includes('org.example.noisy'));
    assert.ok(error.message.includes('Starting server'));
  }
  assert.is(codeOf(() => d.push(bytes('Content-Length: 2\r\n\r\n{}'))), LocalErrorCode.Framing, 'stays failed');
});

decode('should refuse a bare JSON object without headers', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.is(codeOf(() => d.push(bytes(`${PING_BODY}\n`))), LocalErrorCode.Framing);
});

decode('should refuse a log line printed after a valid frame', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.equal(d.push(encodeContentLength('{}')), ['{}']);
  assert.is(codeOf(() => d.push(bytes('warning: something\n'))), LocalErrorCode.Framing);
});

decode('should hand over bodies that precede a violation in the same chunk when given onBody', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  const got: string[] = [];
  const frame = encodeContentLength('{"id":1}');
  const chunk = new Uint8Array([...frame, ...bytes('oops a log line\n')]);
  assert.is(codeOf(() => d.push(chunk, (b) => got.push(b))), LocalErrorCode.Framing);
  assert.equal(got, ['{"id":1}']);
});

decode('should refuse an over-limit body from the header, before any body byte', () => {
  const d = createContentLengthDecoder({ name: 'ext', maxBodyBytes: 1024 });
  try {
    d.push(bytes('Content-Length: 1025\r\n'));
    assert.unreachable('refused from the header line');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Limit);
    assert.equal((error.data as { declared: number; limit: string }).declared, 1025);
    assert.is((error.data as { limit: string }).limit, 'maxMessageBytes');
    assert.match(error.message, /--max-message/);
    assert.match(error.message, /"limits": \{"maxMessageBytes"/);
  }
  assert.equal(createContentLengthDecoder({ name: 'ext', maxBodyBytes: 2 }).push(bytes('Content-Length: 2\r\n\r\n{}')), ['{}']);
});

decode('should refuse an endless header block', () => {
  const d = createContentLengthDecoder({ name: 'ext', maxHeaderBytes: 64 });
  assert.is(codeOf(() => d.push(bytes(`X-Long: ${'a'.repeat(100)}`))), LocalErrorCode.Framing);
});

decode('should refuse invalid UTF-8 in a body', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  const frame = new Uint8Array([...bytes('Content-Length: 3\r\n\r\n'), 0x22, 0xff, 0x22]);
  assert.is(codeOf(() => d.push(frame)), LocalErrorCode.Framing);
});

decode('should decode a body fed one byte at a time, and refuse one whose last character is cut :: chunked', () => {
  const body = `{"text":"${'héllo 🌍 ✓ '.repeat(50)}"}`;
  const frame = encodeContentLength(body);
  const d = createContentLengthDecoder({ name: 'ext' });
  const got: string[] = [];
  for (let i = 0; i < frame.length; i++) got.push(...d.push(frame.subarray(i, i + 1)));
  assert.equal(got, [body]);
  assert.is(d.bufferedBytes, 0);
  // Declares 3 bytes: a quote and the first two bytes of a 4-byte character, in two chunks.
  const cut = createContentLengthDecoder({ name: 'ext' });
  cut.push(bytes('Content-Length: 3\r\n\r\n"'));
  assert.is(codeOf(() => cut.push(Uint8Array.of(0xf0, 0x9f))), LocalErrorCode.Framing);
  const bad = createContentLengthDecoder({ name: 'ext' });
  bad.push(bytes('Content-Length: 4\r\n\r\n"'));
  assert.equal(bad.push(Uint8Array.of(0xff)), []);
  assert.is(codeOf(() => bad.push(bytes('"}'))), LocalErrorCode.Framing);
});

decode('should refuse a stream that ends inside a frame', () => {
  const d = createContentLengthDecoder({ name: 'ext' });
  assert.equal(d.push(bytes('Content-Length: 10\r\n\r\n{"a"')), []);
  assert.ok(d.bufferedBytes > 0);
  assert.is(codeOf(() => d.end()), LocalErrorCode.Framing);
});

decode('should decode a 64 MiB body in 64 KiB chunks in linear time', () => {
  const size = 64 * 1024 * 1024;
  const head = bytes(`Content-Length: ${size}\r\n\r\n`);
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const d = createContentLengthDecoder({ name: 'ext' });
  const started = performance.now();
  assert.equal(d.push(head), []);
  const out: string[] = [];
  for (let sent = 0; sent < size; sent += chunk.length) out.push(...d.push(chunk));
  assert.is(out.length, 1);
  assert.is(out[0].length, size);
  // Quadratic re-concatenation takes minutes here; linear takes well under a second.
  assert.ok(performance.now() - started < 10_000, 'linear');
});

decode.run();

const encode = suite('encodeContentLength');

encode('should count UTF-8 bytes, not characters', () => {
  const frame = encodeContentLength('{"s":"é"}');
  assert.equal(new TextDecoder().decode(frame), 'Content-Length: 10\r\n\r\n{"s":"é"}');
});

encode('should produce the spec ping frame byte for byte', () => {
  assert.equal(Array.from(encodeContentLength(PING_BODY)), Array.from(bytes(`Content-Length: 60\r\n\r\n${PING_BODY}`)));
});

encode.run();
