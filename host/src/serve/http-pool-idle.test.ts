import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHostServer } from './host-server.ts';
import { createSessionPool } from './http-pool.ts';
import { createNodeOpener } from './node-open.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = join(root, 'fixtures/extensions/idle-stderr.mjs');
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
const MiB = 1024 * 1024;

const Idle = suite('mep serve --http :: an idle pooled session’s stderr');

Idle('should not read the stderr of a session idle in the pool (nobody takes its logs), and deliver what waited to the next request :: stderr', async () => {
  // Before, an idle pooled process extension's stderr was read as fast as it wrote, its lines
  // dropped (no request listening), for as long as it idled: the host's CPU for nothing.
  const dir = await mkdtemp(join(tmpdir(), 'mep-pool-idle-'));
  const server = createHostServer({ open: createNodeOpener(), closeGraceMs: 1_000 });
  const pool = createSessionPool({ server });
  try {
    const counterFile = join(dir, 'written');
    const first = await pool.acquire(fixture, () => undefined, new AbortController().signal);
    await first.served.call('morphir.backend.generate', { ir: IR, target: 'echo', options: { counterFile } }, { clientId: 1, signal: new AbortController().signal });
    first.release();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const written = Number(await readFile(counterFile, 'utf8').catch(() => '0'));
    // What a pipe and the reader's buffer hold before the extension waits on its write.
    assert.ok(written <= 4 * MiB, `the idle extension wrote ${(written / MiB).toFixed(1)} MiB of stderr that the host read and dropped`);
    const logs: string[] = [];
    const second = await pool.acquire(fixture, (method, params) => void (method === 'session/log' && logs.push((params as { message: string }).message)), new AbortController().signal);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(logs.length > 0, 'the next request takes the log that waited');
    second.release();
  } finally {
    await pool.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

Idle.run();
