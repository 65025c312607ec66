/**
 * `mep serve` over sessions of many different wasm modules opened one after another, none left
 * open: what the server keeps of closed sessions (its RSS growth). The short form runs in
 * `npm test` (host/src/serve/retained.test.ts), the long one in `npm run hostile`.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtAvro } from '../../examples/testing/built.ts';
import { ServeMethod } from '../../host/src/serve/methods.ts';
import { createLineClient } from '../../host/src/serve/testing/line-client.ts';
import { startServedHost, type ServedHostHandle } from '../soak/server-handle.ts';

/** `bytes` with a custom section `mep.variant` holding `n`: another module, the same guest. */
function variant(bytes: Uint8Array, n: number): Uint8Array {
  const name = Buffer.from('mep.variant');
  const payload = Buffer.from(String(n).padStart(8, '0'));
  const content = [name.length, ...name, ...payload];
  return Uint8Array.from([...bytes, 0, content.length, ...content]);
}

/** Opens a session of `extension` on `host`, pings it and closes it. */
async function session(host: ServedHostHandle, extension: string): Promise<void> {
  const socket = connect(host.path);
  socket.on('error', () => undefined);
  const line = createLineClient((bytes) => socket.write(bytes));
  socket.on('data', (chunk) => line.push(chunk));
  await new Promise((resolve) => socket.once('connect', resolve));
  try {
    const opened = await line.request(1, ServeMethod.Open, { extension });
    if (!('result' in opened)) throw new Error(`session/open failed: ${JSON.stringify(opened)}`);
    const { sessionId } = opened.result as { sessionId: string };
    for (const [id, method, params] of [[2, ServeMethod.Call, { sessionId, method: 'morphir.ping' }], [3, ServeMethod.Close, { sessionId }]] as const) {
      const response = await line.request(id, method, params);
      if (!('result' in response)) throw new Error(`${method} failed: ${JSON.stringify(response)}`);
    }
  } finally {
    socket.destroy();
  }
}

/**
 * Wasm linear memories alive in process `pid` (Linux; undefined elsewhere): V8 reserves each one
 * with a guard region of GiBs: mappings of 1 GiB and more (a few are the engine's own, a
 * constant). A memory a dropped engine left is counted until its isolate collects it.
 */
export function liveLinearMemories(pid: number): number | undefined {
  let maps: string;
  try {
    maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  } catch {
    return undefined;
  }
  let count = 0;
  for (const [, start, end] of maps.matchAll(/^([0-9a-f]+)-([0-9a-f]+) /gm)) if (BigInt(`0x${end}`) - BigInt(`0x${start}`) >= 2n ** 30n) count++;
  return count;
}

/** What {@link retainedAcrossModules} measured, from after the first `warm` sessions to the end (after a forced GC). */
export interface Retained {
  /** RSS growth: what the allocator holds too, freed or not (glibc keeps freed arenas). */
  growth: number;
  before: number;
  after: number;
  /** The main isolate's heap growth: what the host's own objects keep. */
  heapGrowth: number;
  /** Live linear memories before and after (undefined off Linux): a worker that keeps dropped engines grows it. */
  memoriesBefore?: number;
  memoriesAfter?: number;
}

/**
 * Opens `count` sessions of different modules (the avro guest, each with its own custom
 * section) one after another, none left open, and returns the server's RSS growth from after the
 * first `warm` to the end.
 */
export async function retainedAcrossModules(count: number, warm = 2): Promise<Retained> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-serve-retained-'));
  const host = await startServedHost();
  try {
    const guest = new Uint8Array(await readFile(await builtAvro('wasm')));
    let first = await host.measure();
    let memoriesBefore: number | undefined;
    for (let i = 0; i < count; i++) {
      const path = join(dir, `avro-${i}.wasm`);
      await writeFile(path, variant(guest, i));
      await session(host, path);
      if (i === warm - 1) {
        first = await host.measure();
        memoriesBefore = liveLinearMemories(host.pid);
      }
    }
    const last = await host.measure();
    const memoriesAfter = liveLinearMemories(host.pid);
    return {
      growth: last.rss - first.rss,
      before: first.rss,
      after: last.rss,
      heapGrowth: last.heapUsed - first.heapUsed,
      ...(memoriesBefore === undefined || memoriesAfter === undefined ? {} : { memoriesBefore, memoriesAfter }),
    };
  } finally {
    await host.close();
    await rm(dir, { recursive: true, force: true });
  }
}
