/**
 * Requests to `mep serve` nested deeper than the host reads (maxJsonDepth, MAX_JSON_DEPTH levels)
 * are refused unread with a typed ERR_LIMIT and their id, on every transport (deep-request.ts).
 * Before, over HTTP they overflowed the stack: 60,000 levels in a 120 KB body in `JSON.stringify`
 * on the server's thread, 3,000 and 300,000 levels in bodies of 1 MiB or more on the body
 * worker, each an untyped -32603 (the last with id null); lines were -32600 with id null.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, LocalErrorCode } from '../protocol/errors.ts';
import { MAX_JSON_DEPTH } from '../protocol/json-depth.ts';
import { parseJson } from '../protocol/json-parse.ts';
import { parseMessage, type JsonRpcId } from '../rpc/message.ts';
import type { JsonRpcMessage } from '../transport/types.ts';
import { refuseDeepRequest, topLevelId } from './deep-request.ts';
import { errorReply } from './http-rpc.ts';
import { ServeMethod } from './methods.ts';
import { createLineClient, type LineClient } from './testing/line-client.ts';
import { postRpc, startTestHttp } from './testing/http.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = readFileSync(join(root, 'fixtures/mep/ir/business-terms.json'), 'utf8');
const MiB = 1024 * 1024;

/** A generate request whose `options.deep` is `levels` nested arrays, after a string of `padBytes`. */
const deepGenerate = (id: string | number, levels: number, padBytes = 0): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"morphir.backend.generate","params":{"ir":${ir},"target":"echo","options":{"pad":"${'x'.repeat(padBytes)}","deep":${'['.repeat(levels)}${']'.repeat(levels)}}}}`;

/** Asserts `message` is the depth refusal of the request `id`. */
function assertRefused(message: JsonRpcMessage, id: string | number): void {
  const error = message.error as { code: number; message: string; data: { localCode: string; limit: string; maxDepth: number; offset: number } };
  assert.is(message.id, id, JSON.stringify(message).slice(0, 300));
  assert.is(error.code, ErrorCode.ExtensionFailure);
  assert.equal([error.data.localCode, error.data.limit, error.data.maxDepth], [LocalErrorCode.Limit, 'maxJsonDepth', MAX_JSON_DEPTH]);
  assert.match(error.message, /flatten the params/);
}

const Deep = suite('mep serve :: requests nested deeper than maxJsonDepth');

Deep('should read the id of a request whose rest nests too deep to parse, and nothing else', () => {
  const deep = '['.repeat(5000);
  assert.is(topLevelId(`{"params":{"id":9,"x":${deep}${']'.repeat(5000)}},"id":"a\\"b"}`), 'a"b');
  assert.is(topLevelId(`{"jsonrpc":"2.0", "id" : -42 ,"params":${deep}`), -42);
  assert.is(topLevelId(`{"\\u0069d":7,"p":${deep}`), 7);
  assert.is(topLevelId(`{"id":1.5,"p":${deep}`), null);
  assert.is(topLevelId(`{"id":{"x":1},"p":${deep}`), null);
  assert.is(topLevelId(`{"id":9007199254740993,"p":${deep}`), null);
  assert.is(topLevelId(`[{"id":1},${deep}`), null);
  assert.is(topLevelId(`{"id":1,"id":"last"}`), 'last');
  assert.is(refuseDeepRequest(`{"id":1,"p":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`, 'x'), undefined);
  assert.ok(refuseDeepRequest(`{"id":1,"p":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`, 'x'));
});

Deep('should read the id of a deep request as the shallow one parses: 1e3, 1.0, -0, 10E-1, escapes :: hostile', () => {
  const deep = '['.repeat(MAX_JSON_DEPTH + 1);
  const ids = ['1e3', '1.0', '10E-1', '-0', '2E+0', '"\\u0022\\\\"', '"\\ud83d\\ude00"', '1.5', '01', '9007199254740992', '1.00000000000000000001', 'true'];
  for (const id of ids) {
    const head = `{"jsonrpc":"2.0","method":"m","id":${id}`;
    let shallow: JsonRpcId | null = null;
    try {
      const parsed = parseMessage(parseJson(`${head}}`) as JsonRpcMessage);
      shallow = 'id' in parsed ? parsed.id : null;
    } catch {
      shallow = null;
    }
    assert.equal(JSON.stringify(refuseDeepRequest(`${head},"params":${deep}`, 'x')?.id), JSON.stringify(shallow), id);
  }
});

Deep('should refuse an HTTP body nested 60,000 levels in 120 KB on the server thread with ERR_LIMIT maxJsonDepth and its id :: hostile', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    const reply = await postRpc(served.listener.url, deepGenerate('in-thread', 60_000));
    assert.is(reply.status, 200);
    assertRefused(reply.body, 'in-thread');
    assert.is(served.sent.filter((m) => m.method === 'morphir.backend.generate').length, 0);
    assert.is((await fetch(`${served.listener.url}/health`)).status, 200);
  } finally {
    await served.close();
  }
});

Deep('should refuse HTTP bodies of 1 MiB nested 3,000 and 300,000 levels on the body worker with ERR_LIMIT maxJsonDepth and their ids :: hostile', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    for (const [id, levels] of [[3, 3000], ['worker', 300_000]] as const) {
      const body = deepGenerate(id, levels, MiB);
      assert.ok(Buffer.byteLength(body) >= MiB);
      assertRefused((await postRpc(served.listener.url, body)).body, id);
    }
    assert.is(served.sent.filter((m) => m.method === 'morphir.backend.generate').length, 0);
  } finally {
    await served.close();
  }
});

Deep('should serve HTTP bodies nested exactly maxJsonDepth levels, under and over 1 MiB', async () => {
  const served = await startTestHttp({ echo: wellBehaved });
  try {
    // The envelope, params and options are levels 1 to 3.
    for (const pad of [0, MiB]) {
      const reply = await postRpc(served.listener.url, deepGenerate(1, MAX_JSON_DEPTH - 3, pad));
      assert.ok(reply.body.error === undefined || (reply.body.error as { code: number }).code !== ErrorCode.InternalError, JSON.stringify(reply.body).slice(0, 300));
      assert.ok((reply.body.error as { data?: { limit?: string } } | undefined)?.data?.limit !== 'maxJsonDepth', JSON.stringify(reply.body).slice(0, 300));
    }
  } finally {
    await served.close();
  }
});

/** A deep line, then mep.info on the same connection: the refusal keeps its id and the server goes on. */
async function deepLineThenInfo(client: LineClient): Promise<void> {
  client.sendRaw(`{"jsonrpc":"2.0","id":"line","method":"${ServeMethod.Info}","params":{"deep":${'['.repeat(60_000)}${']'.repeat(60_000)}}}\n`);
  assertRefused(await client.next((m) => m.id === 'line' || m.id === null), 'line');
  assert.is(((await client.request(2, ServeMethod.Info)).result as { protocol: string }).protocol, 'mep-serve/0.1');
}

Deep('should refuse a deep line over mep serve stdio and --socket with ERR_LIMIT maxJsonDepth and its id :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-deep-'));
  const socketPath = join(dir, 'mep.sock');
  const mep = join(root, 'bin/mep.mjs');
  const stdio = spawn(process.execPath, [mep, 'serve'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  const socketServe = spawn(process.execPath, [mep, 'serve', '--socket', socketPath, '--verbose'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const overStdio = createLineClient((bytes) => stdio.stdin.write(bytes));
    stdio.stdout.on('data', (chunk: Buffer) => overStdio.push(chunk));
    await deepLineThenInfo(overStdio);
    await new Promise<void>((resolve) => socketServe.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('listening on') && resolve()));
    const socket = connect(socketPath);
    const overSocket = createLineClient((bytes) => socket.write(bytes));
    socket.on('data', (chunk) => overSocket.push(chunk));
    await deepLineThenInfo(overSocket);
    socket.destroy();
  } finally {
    stdio.kill('SIGKILL');
    socketServe.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

Deep('should log the details of an internal failure it answers -32603, as its message says', () => {
  const lines: string[] = [];
  const reply = errorReply(4, new TypeError('boom inside'), 200, (line) => lines.push(line));
  assert.equal((reply.message?.error as { code: number }).code, ErrorCode.InternalError);
  assert.match((reply.message?.error as { message: string }).message, /server log has the details/);
  assert.is(lines.length, 1);
  assert.match(lines[0] ?? '', /boom inside/);
  assert.not.match((errorReply(4, new TypeError('boom')).message?.error as { message: string }).message, /server log/);
});

Deep.run();
