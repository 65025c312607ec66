import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { digest12, digest8, typeApplicationDigest } from './digest.ts';
import { hexPrefix, sha256, u64, utf8 } from './sha256.ts';

const hash = suite('sha256');

const nodeSha256 = (text: string): string => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

hash('should equal node:crypto at every padding boundary', () => {
  // 0–200 bytes cover one, two and four blocks, and the lengths where padding spills over.
  for (let length = 0; length <= 200; length++) {
    const text = Array.from({ length }, (_, i) => String.fromCharCode(32 + ((i * 31 + length) % 95))).join('');
    assert.is(hexPrefix(sha256(utf8(text)), 32), nodeSha256(text), `length ${length}`);
  }
});

hash('should encode non-ASCII text as UTF-8', () => {
  for (const text of ['é', 'naïve-café', '日本語', 'emoji 😀 pair', '\u007f\u0080\u07ff\u0800\uffff']) {
    assert.is(utf8(text), Buffer.from(text, 'utf8').toString('latin1'), text);
    assert.is(hexPrefix(sha256(utf8(text)), 32), nodeSha256(text), text);
  }
});

hash('should encode a lone surrogate as its three bytes', () => {
  assert.is(utf8('a\ud800'), 'a\xed\xa0\x80');
  assert.is(utf8('\udc00b'), '\xed\xb0\x80b');
});

hash('should write u64 lengths big-endian', () => {
  assert.is(u64(0), '\0\0\0\0\0\0\0\0');
  assert.is(u64(0x1234), '\0\0\0\0\0\0\x12\x34');
  assert.is(u64(0x1_0000_0001), '\0\0\0\x01\0\0\0\x01');
});

hash('should keep the digests of generated names', () => {
  const string = { kind: 'reference', source: 'morphir/SDK:string#string', args: [] } as const;
  assert.is(typeApplicationDigest('morphir/SDK:result#result', [string, string]), 'ea53b995971b');
  // Memoized: the second call answers from the memo with the same digest.
  assert.is(typeApplicationDigest('morphir/SDK:result#result', [string, string]), 'ea53b995971b');
  assert.is(digest12(utf8('abc')), 'ba7816bf8f01');
  assert.is(digest8('abc'), 'ba7816bf');
});

hash.run();
