import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeMessage, stringifyMessage } from '../../framing/json-text.ts';
import { encodeUtf8 } from '../../framing/utf8.ts';
import { MAX_JSON_DEPTH, findExcessNesting } from '../../protocol/json-depth.ts';
import { captureIo } from '../io.ts';
import { readJsonInput } from './operation.ts';

const test = suite('cli :: an input file read as bytes, checked in one pass');
let dir = '';
test.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mep-json-input-'));
});
test.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

const read = async (name: string, content: string | Buffer) => {
  await writeFile(join(dir, name), content);
  return readJsonInput(captureIo(dir), name);
};
type Failure = { code?: string; message: string; data?: Record<string, unknown> };
const failure = (promise: Promise<unknown>): Promise<Failure> =>
  promise.then(
    (): Failure => assert.unreachable('read') as never,
    (error: Failure) => error,
  );

test('should keep an ASCII compact file\'s own bytes for the wire, and decode any other file as UTF-8', async () => {
  const ascii = '{"formatVersion":3,"distribution":["Library",[],[],{"s":"\\u00e9"}]}';
  const { value } = await read('ascii.json', ascii);
  assert.is(value.text, ascii);
  assert.equal(value.compactUtf8(), Buffer.from(ascii));
  const message = { jsonrpc: '2.0', id: 2, method: 'morphir.backend.generate', params: { ir: value, target: 'avro' } };
  assert.equal(encodeMessage(message), encodeUtf8(stringifyMessage(message)));
  const utf8 = '{"formatVersion":3,"distribution":["Library",[],[],{"s":"é😀"}]}';
  const other = (await read('utf8.json', utf8)).value;
  assert.is(other.text, utf8);
  assert.is(other.compactUtf8(), undefined);
  assert.is((await read('spaced.json', '{"formatVersion": 3}\n')).value.compactUtf8(), undefined);
});

test('should refuse a deep file as deep, where its depth passes the limit, even when it is not JSON further on', async () => {
  const maxDepth = MAX_JSON_DEPTH - 3;
  for (const text of [`{"a":${'['.repeat(maxDepth + 5)}`, `${'['.repeat(maxDepth)}{}${']'.repeat(maxDepth)}`, `[1,,${'['.repeat(maxDepth + 1)}`]) {
    const error = await failure(read('deep.json', text));
    assert.is(error.code, 'ERR_LIMIT');
    assert.equal(error.data, { file: join(dir, 'deep.json'), limit: 'maxJsonDepth', maxDepth, offset: findExcessNesting(text, maxDepth) });
  }
  // At the limit exactly: read.
  assert.is((await read('edge.json', `${'['.repeat(maxDepth)}${']'.repeat(maxDepth)}`)).value.kind, 'array');
  const bad = await failure(read('bad.json', '{"a": [1, 2,]}'));
  assert.is(bad.code, 'ERR_USAGE');
  assert.match(bad.message, `The input ${join(dir, 'bad.json')} is not valid JSON (expected a JSON value, found "]" at line 1, column 13)`);
});

test.run();
