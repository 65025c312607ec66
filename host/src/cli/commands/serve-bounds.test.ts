import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../exit-codes.ts';
import { serveBoundsOf } from './serve-bounds.ts';
import type { ServeBoundValues } from './serve-bounds.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const MiB = 1024 * 1024;
const LINE = 65 * MiB;
const MESSAGE = 64 * MiB;
const bounds = (values: ServeBoundValues, transport: 'stdio' | 'socket' | 'http' = 'socket') => serveBoundsOf(values, { transport, maxLineBytes: LINE, maxMessageBytes: MESSAGE });
const refusal = (values: ServeBoundValues, transport?: 'stdio' | 'socket' | 'http'): string => {
  try {
    bounds(values, transport);
  } catch (error) {
    assert.instance(error, UsageError);
    return (error as Error).message;
  }
  return assert.unreachable(`accepted ${JSON.stringify(values)}`) as never;
};

const Bounds = suite('mep serve :: flags of the server bounds');

Bounds('should turn each flag into its option', () => {
  assert.equal(
    bounds({ 'max-calls': '8', 'max-sessions-per-connection': '4', 'max-line-buffer': '256MiB', 'max-frame-buffer': '1GiB', 'stdin-backlog': '4MiB', 'stdin-stall': '90s', 'max-connections': '32' }),
    {
      server: { maxCallsPerConnection: 8, maxSessionsPerConnection: 4, maxLineBufferBytes: 256 * MiB, maxFrameBufferBytes: 1024 * MiB },
      process: { maxStdinBacklogBytes: 4 * MiB, stdinStallMs: 90_000 },
      maxConnections: 32,
    },
  );
  assert.equal(bounds({}), { server: {}, process: {} });
  assert.equal(bounds({ 'send-timeout': '90s' }, 'http'), { server: {}, process: {}, sendTimeoutMs: 90_000 });
  assert.equal(bounds({ 'send-timeout': '500ms' }, 'socket'), { server: {}, process: {}, sendTimeoutMs: 500 });
});

Bounds('should refuse malformed and out-of-range values, naming the flag, its range and the value', () => {
  for (const [values, flag] of [
    [{ 'max-calls': '0' }, '--max-calls'],
    [{ 'max-calls': '2.5' }, '--max-calls'],
    [{ 'max-sessions-per-connection': 'many' }, '--max-sessions-per-connection'],
    [{ 'max-line-buffer': '1MiB' }, '--max-line-buffer'],
    [{ 'max-line-buffer': '65GiB' }, '--max-line-buffer'],
    [{ 'max-frame-buffer': '63MiB' }, '--max-frame-buffer'],
    [{ 'max-frame-buffer': 'lots' }, '--max-frame-buffer'],
    [{ 'stdin-backlog': '12' }, '--stdin-backlog'],
    [{ 'stdin-stall': '20' }, '--stdin-stall'],
    [{ 'stdin-stall': '0ms' }, '--stdin-stall'],
    // Past what a timer holds (2^31-1 ms): it would fire at once.
    [{ 'stdin-stall': '3000000000ms' }, '--stdin-stall'],
    [{ 'body-timeout': '25d' }, '--body-timeout'],
    [{ 'headers-timeout': '2147483648ms' }, '--headers-timeout'],
    [{ 'max-connections': '100001' }, '--max-connections'],
    [{ 'send-timeout': '0ms' }, '--send-timeout'],
    [{ 'send-timeout': '60' }, '--send-timeout'],
    [{ 'send-timeout': '2147483648ms' }, '--send-timeout'],
  ] as [ServeBoundValues, string][]) {
    const message = refusal(values, 'http');
    assert.ok(message.includes(flag) && message.includes(JSON.stringify(Object.values(values)[0])), message);
  }
  assert.match(refusal({ 'max-line-buffer': '1MiB' }), /at least 68157440 bytes/);
  assert.match(refusal({ 'max-connections': '4' }, 'stdio'), /--socket or --http/);
  assert.match(refusal({ 'send-timeout': '60s' }, 'stdio'), /--send-timeout bounds the clients of --socket or --http; over stdio the one client is the parent process/);
});

Bounds('should exit 2 with the refusal from mep serve, and apply --max-calls to a served connection', () => {
  const bad = spawnSync(process.execPath, [join(root, 'bin/mep.mjs'), 'serve', '--stdin-stall', '3000000000ms'], { cwd: root, encoding: 'utf8', timeout: 20_000, input: '' });
  assert.is(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--stdin-stall/);
  // Two calls at once over one stdio connection with --max-calls 1: the second is refused.
  const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');
  const generate = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'session/call', params: { sessionId: 's1', method: 'morphir.backend.generate', params: { ir: { formatVersion: 3 }, target: 'echo', options: { delayMs: 1500 } } } });
  const input = [JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/open', params: { extension: wellBehaved } }), generate(2), generate(3)].join('\n');
  const served = spawnSync(process.execPath, ['-e', `
    const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, [${JSON.stringify(join(root, 'bin/mep.mjs'))}, 'serve', '--max-calls', '1'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    let sent = false;
    child.stdout.on('data', (c) => {
      out += c;
      if (!sent && out.includes('"id":1,')) { sent = true; child.stdin.write(${JSON.stringify(input.split('\n').slice(1).join('\n') + '\n')}); }
      if (out.includes('"id":2,') && out.includes('"id":3,')) { process.stdout.write(out); child.kill(); }
    });
    child.stdin.write(${JSON.stringify(input.split('\n')[0] + '\n')});
  `], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  const answers = served.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: { data?: { limit?: string } } });
  assert.equal(answers.find((a) => a.id === 3)?.error?.data?.limit, 'callsPerConnection', served.stdout);
  assert.ok(answers.find((a) => a.id === 2)?.result, served.stdout);
});

Bounds.run();
