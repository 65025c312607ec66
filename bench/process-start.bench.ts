/**
 * What containing a process extension costs per session start (issue 31):
 * `node --import tsx bench/process-start.bench.ts`.
 *
 * One session start is: spawn the well-behaved fixture, `morphir.initialize` answered, stdin
 * closed, the child gone. The baseline is a plain spawn of it (child_process, three pipes, its
 * process group, nothing else), in the same run; measured are the process transport as `mep`
 * runs it — in a PID namespace where the system allows, behind the launcher that closes inherited
 * descriptors — and with `containment: 'process-group'` (the launcher only). Medians of 30.
 * Goal: a contained start ≤ 1.5× the plain one.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeContentLength } from '../host/src/framing/content-length.ts';
import { createPeer } from '../host/src/rpc/peer.ts';
import { createProcessTransport, type ProcessTransportOptions } from '../host/src/transport/process.ts';
import { containment } from '../host/src/transport/process/containment.ts';
import { ROOT, Report, median, ms, progress, sample } from './lib.ts';

const fixture = join(ROOT, 'fixtures/extensions/well-behaved.mjs');
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'morphir.initialize', params: { protocolVersions: ['0.1'] } });

/** A plain spawn: the first answer on stdout, then stdin closed and the exit awaited. */
async function plainStart(): Promise<void> {
  const child = spawn(process.execPath, [fixture], { cwd: tmpdir(), env: {}, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  child.stderr.resume();
  const answered = new Promise((resolve) => child.stdout.once('data', resolve));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.write(encodeContentLength(INIT));
  await answered;
  child.stdin.end();
  await exited;
}

/** A session start through the process transport contained as `how`. */
async function transportStart(how: ProcessTransportOptions['containment']): Promise<void> {
  const transport = createProcessTransport({ name: 'bench', command: process.execPath, args: [fixture], cwd: tmpdir(), containment: how });
  const peer = createPeer(transport);
  try {
    await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
  } finally {
    peer.close();
    await transport.close();
  }
}

const report = new Report('process extension session start (issue 31)');
progress(`containment here: ${containment().kind}`);
const runs = 30;
const plain = median(await sample(runs, 3, plainStart));
const contained = median(await sample(runs, 3, () => transportStart('auto')));
const grouped = median(await sample(runs, 3, () => transportStart('process-group')));
report.row('plain spawn (baseline)', ms(plain));
report.row(`process transport, launcher only (process group)`, ms(grouped));
report.goal({ what: `process transport, ${containment().kind}`, measured: ms(contained), baseline: `${ms(plain)} (plain spawn)`, ratio: contained / plain, ratioMeaning: 'contained / plain', direction: 'atMost', target: 1.5 });
report.print();
