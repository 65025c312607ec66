/**
 * A text artifact held as its ASCII bytes (protocol/raw-artifact.ts, what the wasm transport makes
 * of a guest's `mep_artifact`): the same artifact to every reader, counted and limited as its
 * text, and written to disk as the bytes that came, byte for byte. The transport's side is in
 * transport/wasm/raw-artifact.test.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { artifactBytes } from '../protocol/artifact.ts';
import { LocalErrorCode, isMepError } from '../protocol/errors.ts';
import { asciiBytesOf, asciiTextArtifact, contentUnits } from '../protocol/raw-artifact.ts';
import { withTempDir } from '../../../fixtures/testing/temp-dir.ts';
import { openStagedOutput } from './staged-output.ts';
import { createArtifactValidator } from './validate.ts';

const Ascii = suite('ASCII artifacts handed on as bytes');
const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

Ascii('should read as the plain artifact { path, content, binary } (keys, JSON, spread)', () => {
  const artifact = asciiTextArtifact('a/b.avsc', bytesOf('{"type": "record"}\n'));
  const plain = { path: 'a/b.avsc', content: '{"type": "record"}\n', binary: false };
  assert.equal(Object.keys(artifact), ['path', 'content', 'binary']);
  assert.is(JSON.stringify(artifact), JSON.stringify(plain));
  assert.equal({ ...artifact }, plain);
  assert.is(asciiBytesOf(plain), undefined, 'a plain artifact holds no bytes');
});

Ascii('should count its bytes as its size and its length as its content\'s, without decoding it', () => {
  const text = 'x'.repeat(1000);
  const artifact = asciiTextArtifact('a.txt', bytesOf(text));
  assert.is(artifactBytes(artifact), 1000);
  assert.is(contentUnits(artifact), 1000);
  assert.is(contentUnits({ path: 'b.txt', content: 'é😀', binary: false }), 3);
});

Ascii('should pass the validator with its bytes, and be held to its limits and path checks :: ERR_ARTIFACT', () => {
  const validator = createArtifactValidator('ext', { maxArtifactBytes: 10 });
  const bytes = bytesOf('0123456789');
  const file = validator.check(asciiTextArtifact('ok.txt', bytes));
  assert.is(file.bytes, bytes);
  assert.is(file.content, '0123456789');
  assert.equal(Object.keys(file), ['path', 'content', 'binary', 'bytes']);
  for (const [artifact, pattern] of [
    [asciiTextArtifact('big.txt', bytesOf('0123456789!')), /it is 11 bytes, over the 10-byte limit/],
    [asciiTextArtifact('../up.txt', bytesOf('x')), /"\.\."|outside|parent/],
    [asciiTextArtifact('ok.txt', bytesOf('x')), /it is returned twice/],
  ] as const) {
    try {
      validator.check(artifact);
      assert.unreachable(`${artifact.path} passed`);
    } catch (error) {
      assert.ok(isMepError(error) && error.code === LocalErrorCode.Artifact, String(error));
      assert.match((error as Error).message, pattern);
    }
  }
});

Ascii('should be written as the bytes that came, small and over a chunk, not as a string encoded again', () =>
  withTempDir('mep-ascii-', async (dir) => {
    const out = join(dir, 'out');
    const output = await openStagedOutput(out);
    const validator = createArtifactValidator('ext');
    const small = bytesOf('{"name": "a"}\n');
    const big = new Uint8Array((1 << 20) * 2 + 7).map((_, i) => 0x20 + (i % 95));
    const smallFile = validator.check(asciiTextArtifact('small.avsc', small));
    // The content was read (and kept) before the bytes changed: the file is the bytes.
    assert.is(smallFile.content, '{"name": "a"}\n');
    small[2] = 0x4e;
    assert.is(await output.add(smallFile), small.length);
    assert.is(await output.add(validator.check(asciiTextArtifact('big.txt', big))), big.length);
    await output.publish();
    assert.equal(new Uint8Array(await readFile(join(out, 'small.avsc'))), small);
    assert.ok(Buffer.from(await readFile(join(out, 'big.txt'))).equals(big), 'the big file byte for byte');
  }),
);

Ascii.run();
