import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { createLineSplitter } from './line-splitter.ts';
import { createNdjsonDecoder, encodeNdjson } from './ndjson.ts';

const enc = new TextEncoder();
const bytes = (s: string) => enc.encode(s);

function codeOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    assert.ok(isMepError(error), 'throws a MepError');
    return (error as { code: unknown }).code;
  }
  assert.unreachable('expected a framing error');
}

const ndjson = suite('createNdjsonDecoder');

ndjson('should decode lines split at every byte offset', () => {
  const stream = bytes('{"id":1}\n{"id":"two","s":"é🌍"}\r\n');
  for (let cut = 0; cut <= stream.length; cut++) {
    const d = createNdjsonDecoder({ name: 'ext' });
    const got = [...d.push(stream.subarray(0, cut)), ...d.push(stream.subarray(cut))];
    assert.equal(got, ['{"id":1}', '{"id":"two","s":"é🌍"}'], `cut at ${cut}`);
    d.end();
  }
});

ndjson('should skip blank lines', () => {
  assert.equal(createNdjsonDecoder({ name: 'ext' }).push(bytes('\n\r\n  \n{}\n')), ['{}']);
});

ndjson('should count blank lines and blanks after a line (past its CR) as overhead, the same however the stream is cut', () => {
  const stream = bytes('\n\n  \n{"a":1}\r\n\t{"b":2}   \n\n');
  // 2 LFs, a blank line of 3; then 2 blanks after {"b":2} past the first; then a last blank line.
  const expected = 2 + 3 + 2 + 1;
  for (let cut = 0; cut <= stream.length; cut++) {
    const decoder = createNdjsonDecoder({ name: 'x' });
    const bodies = [...decoder.push(stream.subarray(0, cut)), ...decoder.push(stream.subarray(cut))];
    assert.equal(bodies, ['{"a":1}', '\t{"b":2}'], `cut at ${cut}`);
    assert.is(decoder.overheadBytes, expected, `cut at ${cut}`);
  }
});

ndjson('should refuse a log line naming the extension', () => {
  const d = createNdjsonDecoder({ name: 'org.example.noisy' });
  try {
    d.push(bytes('INFO ready'));
    assert.unreachable('refused before its newline');
  } catch (error) {
    assert.ok(isMepError(error));
    assert.is(error.code, LocalErrorCode.Framing);
    assert.ok(error.message.includes('org.example.noisy'));
  }
});

ndjson('should refuse a line over the limit before its newline', () => {
  const d = createNdjsonDecoder({ name: 'ext', maxLineBytes: 16 });
  assert.equal(d.push(bytes('{"a":')), []);
  assert.is(codeOf(() => d.push(bytes('"0123456789abcdef'))), LocalErrorCode.Limit);
});

ndjson('should report the same error however the line is cut, the one whose byte comes first :: chunked', () => {
  // 5 blanks pass the 4-byte limit before the "x" that is no JSON object: a limit error, in any chunks.
  const stream = bytes('     x');
  for (let cut = 0; cut <= stream.length; cut++) {
    const d = createNdjsonDecoder({ name: 'ext', maxLineBytes: 4 });
    assert.is(codeOf(() => [stream.subarray(0, cut), stream.subarray(cut)].forEach((c) => d.push(c))), LocalErrorCode.Limit, `cut at ${cut}`);
  }
  const early = createNdjsonDecoder({ name: 'ext', maxLineBytes: 4 });
  assert.is(codeOf(() => early.push(bytes('  x    '))), LocalErrorCode.Framing, 'the "x" comes first');
});

ndjson('should refuse invalid UTF-8 and a truncated last line', () => {
  assert.is(codeOf(() => createNdjsonDecoder({ name: 'ext' }).push(Uint8Array.of(0x7b, 0xff, 0x7d, 0x0a))), LocalErrorCode.Framing);
  const d = createNdjsonDecoder({ name: 'ext' });
  d.push(bytes('{"a":1'));
  assert.is(codeOf(() => d.end()), LocalErrorCode.Framing);
});

ndjson('should encode one line, flattening insignificant line breaks', () => {
  assert.equal(new TextDecoder().decode(encodeNdjson('{\n  "a": "x\\ny"\n}')), '{   "a": "x\\ny" }\n');
});

ndjson.run();

const lines = suite('createLineSplitter');

lines('should split CRLF and LF lines across chunks and flush the rest', () => {
  const s = createLineSplitter();
  assert.equal(s.push(bytes('one\r\ntw')), ['one']);
  assert.equal(s.push(bytes('o\nthree')), ['two']);
  assert.equal(s.flush(), ['three']);
  assert.equal(s.flush(), []);
});

lines('should cut over-long lines instead of holding them', () => {
  const s = createLineSplitter({ maxLineChars: 4 });
  assert.equal(s.push(bytes('abcdefghij')), ['abcd', 'efgh']);
  assert.equal(s.flush(), ['ij']);
});

lines('should keep a multibyte character split across chunks', () => {
  const s = createLineSplitter();
  const b = bytes('é\n');
  assert.equal(s.push(b.subarray(0, 1)), []);
  assert.equal(s.push(b.subarray(1)), ['é']);
});

lines.run();
