import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkOrigin, checkToken, hostsFor, type HeaderLookup } from './http-guard.ts';

const TOKEN = 'a-token-of-thirty-two-characters';

const headers = (authorization?: string): HeaderLookup => (name) => (name === 'authorization' ? authorization : undefined);

/** Runs `fn` counting the SHA-256 digests taken (passed through to the real one) and the lengths digested. */
async function countingDigests<T>(fn: () => Promise<T>): Promise<{ value: T; lengths: number[] }> {
  const subtle = crypto.subtle;
  const real = subtle.digest.bind(subtle);
  const lengths: number[] = [];
  Object.defineProperty(subtle, 'digest', {
    configurable: true,
    value: (algorithm: AlgorithmIdentifier, data: BufferSource) => {
      lengths.push(data.byteLength);
      return real(algorithm, data);
    },
  });
  try {
    return { value: await fn(), lengths };
  } finally {
    delete (subtle as { digest?: unknown }).digest;
  }
}

const Token = suite('http guard :: token');

Token('should refuse every forged token alike, after the same work (auth failures without timing leaks): one digest of what was presented, whatever its length or likeness', async () => {
  // The server's own token is digested once; after that a check digests what was presented, and only that.
  assert.is(await checkToken(headers(`Bearer ${TOKEN}`), TOKEN), undefined);
  const forged = [
    `Bearer ${TOKEN.slice(0, -1)}`, // a prefix
    `Bearer ${TOKEN}x`, // one character more
    `Bearer ${TOKEN.slice(0, -1)}Z`, // the same length, the last character off
    'Bearer x', // another length
    `Bearer ${'y'.repeat(4096)}`,
    `Basic ${btoa(`morphir:${TOKEN.slice(0, -1)}`)}`, // Basic, a wrong password
  ];
  const refusals = [];
  for (const authorization of forged) {
    const presented = authorization.startsWith('Basic') ? TOKEN.length - 1 : authorization.length - 'Bearer '.length;
    const { value, lengths } = await countingDigests(() => checkToken(headers(authorization), TOKEN));
    assert.equal(lengths, [presented], `one digest, of the presented token only: ${authorization.slice(0, 40)}`);
    refusals.push(value);
  }
  // The answer says nothing of how close a forged token came.
  for (const refusal of refusals) assert.equal(refusal, refusals[0]);
  assert.is(refusals[0]?.status, 401);
  assert.is(refusals[0]?.headers?.['www-authenticate'], 'Bearer realm="mep"');

  // No token at all: the same work (an empty digest), its own message.
  const missing = await countingDigests(() => checkToken(headers(undefined), TOKEN));
  assert.equal(missing.lengths, [0]);
  assert.is(missing.value?.status, 401);
  assert.match(missing.value?.message ?? '', /needs a token/);
});

Token.run();

const Hosts = suite('http guard :: Host');

Hosts('should answer to the loopback address it is bound to (127.0.0.2, ::1), and still refuse a rebound name', () => {
  const host = (value: string): HeaderLookup => (name) => (name === 'host' ? value : undefined);
  for (const [bound, named] of [['127.0.0.2', '127.0.0.2:8080'], ['127.0.0.1', '127.0.0.1:8080'], ['::1', '[::1]:8080'], ['localhost', 'LOCALHOST:8080'], ['127.0.0.2', 'localhost']]) {
    // Before, a server bound to 127.0.0.2 refused its own URL with 403 (only localhost, 127.0.0.1 and [::1] were taken).
    assert.is(checkOrigin(host(named as string), { allowHosts: hostsFor(bound as string) }), undefined, `${bound} ← Host: ${named}`);
  }
  for (const [bound, named] of [['127.0.0.2', 'evil.example:8080'], ['127.0.0.2', '127.0.0.3:8080'], ['127.0.0.1', '127.0.0.1.nip.io'], ['127.0.0.1', 'localhost.'], ['127.0.0.1', '']]) {
    assert.is(checkOrigin(host(named as string), { allowHosts: hostsFor(bound as string) })?.status, 403, `${bound} ← Host: ${named}`);
  }
});

Hosts.run();
