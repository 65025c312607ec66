/**
 * A `session/open`'s `runtime.limits` are the client's, and the server's limits (`mep serve
 * --max-memory …`, else the defaults) are the operator's: the client's won, so one client gave
 * each of its sessions up to 4 GiB of linear memory under a server started with --max-memory
 * 16MiB (64 sessions: 256 GiB). A client may now lower the server's bounds, not raise them.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtAvro } from '../../../examples/testing/built.ts';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { specOfFile } from '../registry/launch.ts';
import { createByteChannelPair } from './byte-channel.ts';
import { createHostServer } from './host-server.ts';
import { ServeMethod } from './methods.ts';
import { createNodeOpener } from './node-open.ts';
import { createLineClient } from './testing/line-client.ts';

const MiB = 1024 * 1024;
const Limits = suite("mep serve :: a client's runtime.limits below the server's");

Limits('should refuse a session/open whose runtime.limits pass the server\'s, naming the limit and the flag, and take lower ones :: ceilings', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-client-limits-'));
  const echo = join(dir, 'echo.wasm');
  await writeFile(echo, loadWatFixture('echo'));
  // The server as `mep serve --max-memory 16MiB` is: its flags are the limits of every spec it resolves.
  const server = createHostServer({ open: createNodeOpener({ resolve: async (reference) => ({ spec: specOfFile(reference, { maxMemoryBytes: 16 * MiB }) }) }), closeGraceMs: 500 });
  const [serverSide, clientSide] = createByteChannelPair();
  const connection = server.connect(serverSide);
  const client = createLineClient((bytes) => clientSide.write(bytes));
  clientSide.onData((chunk) => client.push(chunk));
  try {
    const cases: [Record<string, number>, string, RegExp][] = [
      [{ maxMemoryBytes: 4096 * MiB }, 'maxMemoryBytes', /--max-memory/],
      // Not given to the server: its default (64 MiB messages, modules and notifications) is the ceiling.
      [{ maxResponseBytes: 512 * MiB }, 'maxResponseBytes', /--max-message/],
      [{ maxModuleBytes: 1024 * MiB }, 'maxModuleBytes', /--max-module/],
      [{ maxNotificationBytes: 1024 * MiB }, 'maxNotificationBytes', /--max-notifications/],
    ];
    let id = 1;
    for (const [limits, name, flag] of cases) {
      const answer = await client.request(id++, ServeMethod.Open, { extension: echo, runtime: { limits } });
      const error = answer.error as { message: string; data?: { localCode?: string; limit?: string } } | undefined;
      assert.is(error?.data?.localCode, LocalErrorCode.Limit, `${name}: ${JSON.stringify(answer)}`);
      assert.is(error?.data?.limit, name);
      assert.match(error?.message ?? '', flag);
    }
    assert.is(server.slotCount, 0, 'a refused open holds no slot');
    // Lower than the server's: the client's.
    const lower = await client.request(id++, ServeMethod.Open, { extension: await builtAvro('wasm'), runtime: { limits: { maxMemoryBytes: 8 * MiB, maxResponseBytes: MiB } } });
    assert.type((lower.result as { sessionId?: string } | undefined)?.sessionId, 'string', JSON.stringify(lower));
  } finally {
    clientSide.close();
    await connection.closed;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Limits.run();
