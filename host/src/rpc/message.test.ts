import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonRpcMessage } from '../transport/types.ts';
import { parseMessage } from './message.ts';

const Message = suite('parseMessage');
const parse = (text: string) => parseMessage(JSON.parse(text) as JsonRpcMessage);

Message('should classify a result answer with a string or safe-integer id, keeping the result object', () => {
  const result = { ok: [1, 2] };
  assert.equal(parseMessage({ jsonrpc: '2.0', id: 7, result } as JsonRpcMessage), { kind: 'result', id: 7, result });
  assert.equal(parse('{"jsonrpc":"2.0","id":"a","result":null}'), { kind: 'result', id: 'a', result: null });
  assert.is((parse('{"jsonrpc":"2.0","id":1,"result":{"x":1}}') as { result: unknown }).result !== undefined, true);
});

Message('should refuse every result envelope the schema refuses :: hostile', () => {
  const cases: [string, string | null][] = [
    ['{"jsonrpc":"2.0","id":1.5,"result":1}', null],
    ['{"jsonrpc":"2.0","id":9007199254740993,"result":1}', null],
    ['{"jsonrpc":"2.0","id":null,"result":1}', null],
    ['{"jsonrpc":"2.0","id":true,"result":1}', null],
    ['{"jsonrpc":"2.0","result":1}', null],
    ['{"jsonrpc":"1.0","id":3,"result":1}', '3'],
    ['{"id":3,"result":1}', '3'],
    ['{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"m"}}', '3'],
    ['{"jsonrpc":"2.0","id":3,"result":1,"method":"m"}', '3'],
  ];
  for (const [text, id] of cases) {
    const parsed = parse(text);
    assert.is(parsed.kind, 'invalid', text);
    assert.is(parsed.kind === 'invalid' && parsed.looksLike !== 'unknown', true, text);
    assert.is(parsed.kind === 'invalid' ? JSON.stringify(parsed.id) : '', id === null ? 'null' : id, text);
  }
});

Message('should read requests, notifications and error answers as before', () => {
  assert.equal(parse('{"jsonrpc":"2.0","id":2,"method":"m","params":{}}'), { kind: 'request', id: 2, method: 'm', params: {} });
  assert.equal(parse('{"jsonrpc":"2.0","method":"n"}'), { kind: 'notification', method: 'n', params: undefined });
  assert.equal(parse('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}'), { kind: 'error', id: null, error: { code: -32700, message: 'x' } });
  assert.is(parse('{"jsonrpc":"2.0","id":2.5,"method":"m"}').kind, 'invalid');
});

Message.run();
