import { fileURLToPath } from 'node:url';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { builtAvro } from '../../examples/testing/built.ts';
import { loadWatFixture } from '../../fixtures/wasm/compile.ts';
import { startServedHost } from './server-handle.ts';
import { soakGuests, type ScenarioName } from './scenarios.ts';
import { runSoak } from './run-soak.ts';
const root = fileURLToPath(new URL('../../', import.meta.url));
mkdirSync(join(root, '.cache/soak'), { recursive: true });
const w = (n: string) => { const p = join(root, '.cache/soak', `${n}.wasm`); writeFileSync(p, loadWatFixture(n)); return p; };
const guests = soakGuests(root, { avroWasm: await builtAvro('wasm'), loopWasm: w('loop'), trapWasm: w('trap') });
const host = await startServedHost();
const mix = (process.argv[3] ?? 'wasmPing').split(',') as ScenarioName[];
const t0 = performance.now();
const r = await runSoak({ host, guests, sessions: Number(process.argv[2] ?? 200), concurrency: 20, checkpointEvery: 50, mix, maxMs: 300_000,
  onCheckpoint: (c) => console.log(c.sessions, (c.elapsedMs/1000).toFixed(1), 'rss', (c.sample.rss/1e6).toFixed(1), 'heap', (c.sample.heapUsed/1e6).toFixed(1), 'ext', (c.sample.external/1e6).toFixed(1), 'ab', (c.sample.arrayBuffers/1e6).toFixed(1), c.sample.sessions, c.sample.connections, JSON.stringify(c.sample.resources)) });
const { record, wrong, ...t } = r.tally; console.log(JSON.stringify(t), ((performance.now()-t0)/1000).toFixed(1));
await host.close();
