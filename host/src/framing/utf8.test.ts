import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeUtf8 } from './utf8.ts';

const test = suite('encodeUtf8');

const reference = (text: string): Uint8Array => new TextEncoder().encode(text);

test('should write the bytes TextEncoder writes, short or long, ASCII or not :: hostile text', () => {
  const texts = ['', '{"jsonrpc":"2.0","id":1,"method":"morphir.ping","params":{}}', 'é', 'a\u0000b', 'x'.repeat(255) + 'é', 'x'.repeat(4096), '\ud800', 'a\udfffb', '😀', '\u007f\u0080'];
  for (const text of texts) assert.equal(encodeUtf8(text), reference(text), JSON.stringify(text).slice(0, 40));
});

test('should hand out bytes that own their whole buffer (a transport transfers or keeps it)', () => {
  for (const text of ['{"id":1}', 'é'.repeat(10), 'x'.repeat(5000)]) {
    const bytes = encodeUtf8(text);
    assert.is(bytes.byteOffset, 0);
    assert.is(bytes.byteLength, bytes.buffer.byteLength);
  }
});

test.run();
