import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode, type MepError } from '../../protocol/errors.ts';
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.ts';
import { SLICED_FROM_CHARS, SLICE_VALUES } from '../../protocol/json-sliced.ts';
import { createGuestMessages } from './guest-messages.ts';

const Sliced = suite('guest messages :: large answers of few values and of many');
const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const messages = createGuestMessages('acme.gen');
/** A generator's answer: one artifact holding JSON (escaped quotes, brackets, commas), over SLICED_FROM_CHARS. */
const artifact = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ k: `v${i}`, a: [i, '"αβ'] })));
const fewValues = `{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1},"artifacts":[{"path":"a.json","content":${JSON.stringify(artifact)}}]}}`;
const manyValues = `{"jsonrpc":"2.0","id":2,"result":[${'{"__proto__":1},'.repeat(SLICE_VALUES * 5)}{}]}`;

Sliced('should read both kinds as JSON.parse does, a `__proto__` key an own member :: values', async () => {
  assert.ok(fewValues.length >= SLICED_FROM_CHARS && manyValues.length >= SLICED_FROM_CHARS);
  for (const text of [fewValues, manyValues]) {
    const decoded = await messages.decodeSliced(encode(text), 'response');
    assert.equal(decoded, JSON.parse(text));
    const result = decoded.result as Record<string, unknown> | Record<string, unknown>[];
    const holder = Array.isArray(result) ? (result[0] as object) : result;
    assert.ok(Object.hasOwn(holder, '__proto__'));
    assert.is(Object.getPrototypeOf(holder), Object.prototype);
  }
});

Sliced('should refuse bad text of either kind with the same typed errors :: hostile', async () => {
  const refusal = async (text: string): Promise<MepError> => {
    try {
      await messages.decodeSliced(encode(text), 'response');
    } catch (error) {
      return error as MepError;
    }
    throw new Error('accepted');
  };
  for (const text of [fewValues, manyValues]) {
    assert.is((await refusal(`${text.slice(0, -1)},}`)).code, LocalErrorCode.Protocol, 'not JSON');
    assert.is((await refusal(`[${text}]`)).code, LocalErrorCode.Protocol, 'not a message object');
    const deep = `${text.slice(0, -2)},"d":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}}`;
    assert.is(((await refusal(deep)).data as { limit?: string } | undefined)?.limit, 'maxJsonDepth', 'nested past the limit');
  }
});

Sliced.run();
