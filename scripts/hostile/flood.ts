/**
 * One notification or log flood from a wasm guest, measured in a process of its own: the host's
 * RSS before (after a GC) and at its peak while a guest sends `--mib` MiB of `morphir.log`
 * notifications (`--via notify`, through the MEP host channel) or Extism log lines (`--via log`)
 * in one call, in messages of `--message-kib` KiB. Prints one JSON line (see {@link FloodReport}).
 * Run by flood.test.ts (short) and hostile.ts (`npm run hostile`, 3 GiB).
 *
 * Usage: node --expose-gc --import tsx scripts/hostile/flood.ts --mib 256 [--via notify|log]
 *          [--isolation worker|inline] [--message-kib 64] [--budget-mib N]
 */
import { parseArgs } from 'node:util';
import { loadEditedWatFixture, loadPortableWatFixture } from '../../fixtures/wasm/compile.ts';
import { createWasmTransport } from '../../host/src/transport/wasm/index.ts';
import { createNodeWasmWorkerSpawner } from '../../host/src/transport/wasm/node/worker.ts';
import { measureRss, type MeasuredRun } from './measure-rss.ts';

/** What one flood measured. */
export interface FloodReport extends MeasuredRun {
  via: 'notify' | 'log';
  isolation: 'worker' | 'inline';
  /** Bytes of text the guest sent, and the messages it sent them in. */
  sentBytes: number;
  messages: number;
  /** Messages the host delivered before the response. */
  delivered: number;
}

const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    mib: { type: 'string', default: '256' },
    via: { type: 'string', default: 'notify' },
    isolation: { type: 'string', default: 'worker' },
    'message-kib': { type: 'string', default: '64' },
    'budget-mib': { type: 'string' },
  },
});
const via = values.via === 'log' ? 'log' : 'notify';
const isolation = values.isolation === 'inline' ? 'inline' : 'worker';
const size = Number(values['message-kib']) * 1024;
const count = Math.ceil((Number(values.mib) * MIB) / size);
const budget = values['budget-mib'] === undefined ? 2 * count * size : Number(values['budget-mib']) * MIB;

/** The flood guest with its size and count written in. */
function floodModule(): Uint8Array {
  const edit = (wat: string): string =>
    wat
      .replace(/\(global \$size (i32|i64) \((i32|i64)\.const \d+\)\)/, (_m, type: string) => `(global $size ${type} (${type}.const ${size}))`)
      .replace(/\(global \$count i32 \(i32\.const \d+\)\)/, `(global $count i32 (i32.const ${count}))`);
  if (via === 'notify') {
    // 20 pages hold up to about 1.2 MiB of message.
    const pages = Math.ceil((size + 4096) / 65_536) + 1;
    return loadPortableWatFixture('notify-flood', (wat) => edit(wat).replace('(memory (export "memory") 20)', `(memory (export "memory") ${Math.max(20, pages)})`));
  }
  // The kernel guest imports no channel function: its text is only edited.
  return loadEditedWatFixture('log-flood', edit);
}

const transport = await createWasmTransport({
  name: `${via}-flood`,
  module: floodModule(),
  isolation,
  spawnWorker: isolation === 'worker' ? createNodeWasmWorkerSpawner() : undefined,
  limits: { maxNotificationBytes: Math.max(1024, budget), callTimeoutMs: 1_800_000 },
  // The Extism log lines reach the host's logger; counted like notifications.
  log: () => void delivered++,
});
let delivered = 0;
transport.onMessage((message) => {
  if (message.method !== undefined) delivered++;
});
const measured = await measureRss(
  () =>
    new Promise<string>((resolve) => {
      transport.onMessage((message) => {
        if (message.id === 1) resolve('error' in message ? String((message.error as { code: unknown }).code) : 'answered');
      });
      transport.onClose((error) => resolve(error === undefined ? 'closed' : String(error.code)));
      transport.send({ jsonrpc: '2.0', id: 1, method: 'flood' });
    }),
);
await transport.close();
const report: FloodReport = { via, isolation, sentBytes: count * size, messages: count, delivered, ...measured };
process.stdout.write(`${JSON.stringify(report)}\n`);
