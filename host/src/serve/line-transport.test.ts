import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { JsonRpcMessage } from '../transport/types.ts';
import { createByteChannelPair } from './byte-channel.ts';
import { createLineTransport } from './line-transport.ts';

const Lines = suite('createLineTransport :: CPU per line');
const encoder = new TextEncoder();

Lines('should let the event loop turn while it parses a line of 600,000 empty objects, and keep the lines after it in order', async () => {
  const [serverSide, clientSide] = createByteChannelPair();
  const transport = createLineTransport(serverSide);
  const order: string[] = [];
  transport.onMessage((message: JsonRpcMessage) => order.push(String(message.id)));
  const answers: string[] = [];
  clientSide.onData((chunk) => answers.push(new TextDecoder().decode(chunk)));
  try {
    const big = `{"jsonrpc":"2.0","id":"big","method":"server/info","params":{"pad":[${'{},'.repeat(600_000)}{}]}}`;
    // One chunk: the large line, a small one, a line that is not JSON, then another small one.
    clientSide.write(encoder.encode(`${big}\n{"jsonrpc":"2.0","id":"small","method":"server/info"}\n{nope\n{"jsonrpc":"2.0","id":"last","method":"server/info"}\n`));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('a turn');
    while (order.length < 4) await new Promise((resolve) => setImmediate(resolve));
    // Before, JSON.parse held the loop for the whole line: every line was read before anything else ran.
    assert.equal(order, ['a turn', 'big', 'small', 'last']);
    assert.match(answers.join(''), /"code":-32700/);
  } finally {
    await transport.close();
  }
});

Lines.run();
