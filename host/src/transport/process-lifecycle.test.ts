import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMepError, LocalErrorCode, type MepError } from '../protocol/errors.ts';
import { openTransport, specFromPath, type LaunchSpec } from '../registry/launch.ts';
import { withProject } from '../registry/test-support.ts';
import { createPeer, type Peer } from '../rpc/peer.ts';
import { isAlive } from '../serve/testing/processes.ts';
import { createSession } from '../session/session.ts';
import { createProcessTransport } from './process.ts';
import { AFTER_EXIT_BYTES } from './process/stderr-reader.ts';
import { liveProcessGroups } from './process-group.ts';
import type { LogEntry, LogSink } from './types.ts';

const fixture = (file: string): string => fileURLToPath(new URL(`../../../fixtures/extensions/${file}`, import.meta.url));
const IR = { formatVersion: 3, distribution: ['Library', [['my'], ['pkg']], [], { modules: [] }] };
const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);

/** Runs `fn` with a fresh temporary directory, removed afterwards. */
const withDir = (fn: (dir: string) => Promise<void>): Promise<void> => withProject((t) => fn(t.root));

/** Runs `fn` with an initialized raw peer on the extension of `spec` (as `openTransport` starts it), closed afterwards. */
async function withPeer(spec: LaunchSpec, timeoutMs: number, fn: (peer: Peer, closed: Promise<MepError | undefined>) => Promise<void>): Promise<void> {
  const transport = await openTransport(spec);
  const peer = createPeer(transport, { timeoutMs });
  const closed = new Promise<MepError | undefined>((resolve) => transport.onClose(resolve));
  try {
    await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
    await fn(peer, closed);
  } finally {
    peer.close();
    await transport.close();
  }
}

async function pids(file: string): Promise<[number, number]> {
  const [child, grandchild] = (await readFile(file, 'utf8')).split(' ').map(Number);
  return [child as number, grandchild as number];
}

const Group = suite('process extension :: its process group');

for (const stdio of ['ignore', 'inherit'] as const) {
  Group(`should end a grandchild ${stdio === 'inherit' ? 'holding the stdio pipes' : 'in the group'} when the library session closes`, () =>
    withDir(async (dir) => {
      const pidFile = join(dir, 'pids');
      const session = createSession({ transport: await openTransport(specFromPath(fixture('grandchild.mjs'), { killGraceMs: 500 })) });
      let child = 0;
      let grandchild = 0;
      try {
        await session.start();
        const result = await session.generate({ ir: IR, target: 'echo', options: { stdio, pidFile } });
        assert.ok(result.success);
        [child, grandchild] = await pids(pidFile);
        assert.ok(isAlive(grandchild), 'the grandchild runs while the session does');
      } finally {
        await session.close();
      }
      assert.not.ok(isAlive(child), 'the extension is gone');
      assert.not.ok(isAlive(grandchild), 'its grandchild is gone with it');
      assert.not.ok(liveProcessGroups().includes(child), 'and its group is forgotten');
    }),
  );
}

Group('should end the group of an extension that crashes, grandchild included', () =>
  withDir(async (dir) => {
    const pidFile = join(dir, 'pids');
    await withPeer(specFromPath(fixture('grandchild.mjs')), 10_000, async (peer, closed) => {
      void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { pidFile, hang: true } }).catch(() => undefined);
      for (let i = 0; i < 500 && !(await readFile(pidFile, 'utf8').catch(() => '')); i++) await new Promise((r) => setTimeout(r, 10));
      const [child, grandchild] = await pids(pidFile);
      process.kill(child, 'SIGKILL');
      assert.is(codeOf(await closed), LocalErrorCode.ExtensionCrashed);
      for (let i = 0; i < 300 && isAlive(grandchild); i++) await new Promise((r) => setTimeout(r, 10));
      assert.not.ok(isAlive(grandchild), 'the orphaned grandchild was ended with the group');
    });
  }),
);

Group.run();

const Eof = suite('process extension :: end of its stdout');

Eof('should end the session as soon as the extension closes its stdout, not at the deadline :: ERR_EXTENSION_CRASHED', async () => {
  await withPeer(specFromPath(fixture('stdout-closer.mjs'), { killGraceMs: 200 }), 60_000, async (peer, closed) => {
    const started = performance.now();
    const error = await peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }).then(
      () => assert.unreachable('answered'),
      (e: unknown) => e,
    );
    assert.is(codeOf(error), LocalErrorCode.ExtensionCrashed);
    assert.ok(performance.now() - started < 20_000, 'well before the 60 s deadline');
    const reason = await closed;
    assert.is(codeOf(reason), LocalErrorCode.ExtensionCrashed);
    assert.is((reason?.data as { reason: string }).reason, 'stdout-closed');
  });
});

Eof.run();

const Memory = suite('process extension :: memory cap');

Memory('should stop a leaking Node.js script at the default 256 MiB heap cap with the memory-limit error :: ERR_LIMIT', async () => {
  await withPeer(specFromPath(fixture('leak.mjs')), 120_000, async (peer, closed) => {
    void peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: {} }).catch(() => undefined);
    const error = await closed;
    assert.is(codeOf(error), LocalErrorCode.Limit, error?.message);
    assert.is((error?.data as { limit: string }).limit, 'maxMemoryBytes');
  });
});

Memory('should run a native executable under an address-space cap (prlimit --as) when a memory limit is set', () =>
  withDir(async (dir) => {
    if (process.platform !== 'linux') return;
    // A native executable as mep sees it (not a .js file): a shell script that execs Node.
    const exe = join(dir, 'ext');
    await writeFile(exe, `#!/bin/sh\nexec '${process.execPath}' '${fixture('well-behaved.mjs')}'\n`);
    await chmod(exe, 0o755);
    const cap = 4 * 1024 * 1024 * 1024;
    await withPeer(specFromPath(exe, { limits: { maxMemoryBytes: cap } }), 10_000, async (peer) => {
      const { pid } = (await peer.request('fixture.env', {})) as { pid: number };
      const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
      assert.match(limits, new RegExp(`Max address space\\s+${cap}\\s+${cap}\\s+bytes`));
    });
  }),
);

Memory.run();

const Stderr = suite('process extension :: stderr back-pressure');

Stderr('should stop reading stderr while the log sink is busy and lose no line once it drains', async () => {
  let busy = true;
  const drains: (() => void)[] = [];
  const lines: LogEntry[] = [];
  const sink: LogSink = Object.assign((entry: LogEntry) => void lines.push(entry), { busy: () => busy, onDrain: (listener: () => void) => void drains.push(listener) });
  const transport = createProcessTransport({ name: 'flood', command: process.execPath, args: [fixture('stderr-flood.mjs')], cwd: tmpdir(), log: sink });
  const peer = createPeer(transport, { timeoutMs: 60_000 });
  try {
    await peer.request('morphir.initialize', { protocolVersions: ['0.1'] });
    const answer = peer.request('morphir.backend.generate', { ir: IR, target: 'echo', options: { stderrMib: 4 } });
    let answered = false;
    void answer.then(() => (answered = true), () => undefined);
    // Paused at the first chunk: the extension fills its pipe and waits; nothing more is read.
    while (drains.length === 0) await new Promise((r) => setTimeout(r, 5));
    const held = lines.length;
    await new Promise((r) => setTimeout(r, 200));
    assert.is(lines.length, held, 'no stderr read while the sink is busy');
    assert.not.ok(answered, 'the extension waits on its stderr');
    busy = false;
    for (const drain of drains.splice(0)) drain();
    await answer;
    // The answer may overtake the end of the log on the other pipe: the fixture's last line says it is all there.
    while (!lines.some((l) => /wrote 4 MiB of log/.test(l.message))) await new Promise((r) => setTimeout(r, 5));
    const flood = lines.filter((l) => l.message.startsWith('x')).reduce((sum, l) => sum + l.message.length, 0);
    assert.is(flood, 4 * 16 * 65_535, 'every character of the 64 lines of 64 KiB');
  } finally {
    peer.close();
    await transport.close();
  }
});

/**
 * A script that writes a line to stderr, then (once the host has read it, 100 ms later) 500
 * more, and ends (its event loop empties once they are written): those wait in the pipe while the host's log sink is busy.
 */
const EXITS_WITH_LOG_WAITING = `process.stderr.write('first\\n'); setTimeout(() => { for (let i = 0; i < 500; i++) process.stderr.write('line ' + i + '\\n'); }, 100);`;

/** A sink that is busy until `release()`; the lines it got. */
function heldSink(): { sink: LogSink; lines: string[]; held: () => boolean; release: () => void } {
  let busy = true;
  const drains: (() => void)[] = [];
  const lines: string[] = [];
  const sink: LogSink = Object.assign((entry: LogEntry) => void lines.push(entry.message), { busy: () => busy, onDrain: (listener: () => void) => void drains.push(listener) });
  return { sink, lines, held: () => drains.length > 0, release: () => { busy = false; for (const drain of drains.splice(0)) drain(); } };
}

for (const closedBy of ['its exit', 'the host closing the transport'] as const) {
  Stderr(`should forward the log an extension left in its stderr pipe when it exited while the sink was busy, ended by ${closedBy} (no line lost)`, async () => {
    const { sink, lines, held, release } = heldSink();
    const transport = createProcessTransport({ name: 'leaver', command: process.execPath, args: ['-e', EXITS_WITH_LOG_WAITING], cwd: tmpdir(), log: sink });
    const closed = new Promise<void>((resolve) => transport.onClose(() => resolve()));
    while (!held()) await new Promise((r) => setTimeout(r, 5));
    const pid = transport.pid as number;
    while (isAlive(pid)) await new Promise((r) => setTimeout(r, 5));
    // Past the grace a child's pipes get after its exit (250 ms): the sink is still busy.
    await new Promise((r) => setTimeout(r, 400));
    const closing = closedBy === 'its exit' ? closed : transport.close();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await closing;
    await closed;
    const left = lines.filter((l) => l.startsWith('line '));
    assert.is(left.length, 500, `${left.length} of the 500 lines written before its exit reached the sink`);
  });
}

/**
 * A script that leaves a process of its own session (setsid: out of its group) holding its
 * stderr, says its pid, and exits; that process waits for the exit, then writes 64 KiB lines
 * to the shared stderr as fast as it is read, for a minute.
 */
const LEAVES_A_WRITER = `const { spawn } = require('node:child_process');
const writer = spawn(process.execPath, ['-e', \`const parent = \${process.pid};
const line = 'y'.repeat(65535) + '\\\\n';
const alive = () => { try { process.kill(parent, 0); return true; } catch { return false; } };
(async () => {
  while (alive()) await new Promise((r) => setTimeout(r, 5));
  const until = Date.now() + 60000;
  while (Date.now() < until) if (!process.stderr.write(line)) await new Promise((r) => process.stderr.once('drain', r));
})();\`], { detached: true, stdio: ['ignore', 'ignore', 'inherit'] });
process.stderr.write('writer ' + writer.pid + '\\n');
writer.unref();`;

Stderr('should stop forwarding stderr after the extension exited once a process it left wrote AFTER_EXIT_BYTES more, whatever pace the sink reads at', async () => {
  // A sink that is busy after every line and drains at the next turn: the grace's clock runs only
  // in the moments between, so only the byte bound ends the wait in good time.
  let bytes = 0;
  let writer = 0;
  const sink: LogSink = Object.assign(
    (entry: LogEntry) => {
      const pid = /^writer (\d+)$/.exec(entry.message)?.[1];
      if (pid) writer = Number(pid);
      else bytes += entry.message.length + 1;
    },
    { busy: () => true, onDrain: (listener: () => void) => void setImmediate(listener) },
  );
  const transport = createProcessTransport({ name: 'leaver', command: process.execPath, args: ['-e', LEAVES_A_WRITER], cwd: tmpdir(), log: sink, containment: 'process-group' });
  // What was forwarded when the extension (or the init it runs under) was seen to exit.
  let atExit: number | undefined;
  const watch = setInterval(() => {
    if (atExit === undefined && !isAlive(transport.pid as number)) atExit = bytes;
  }, 2);
  try {
    await new Promise<void>((resolve) => transport.onClose(() => resolve()));
    clearInterval(watch);
    assert.ok(writer > 0, 'the writer started');
    assert.ok(atExit !== undefined, 'its exit was seen');
    // Measured: 2,162,688 bytes after the exit, then nothing more read. Before, it read on through the grace after the exit and again in the teardown: 5-23 MB.
    assert.ok(bytes - atExit <= AFTER_EXIT_BYTES + 1024 * 1024, `${bytes - atExit} bytes forwarded after the exit`);
  } finally {
    clearInterval(watch);
    await transport.close();
    if (writer > 0 && isAlive(writer)) process.kill(writer, 'SIGKILL');
  }
});

Stderr.run();
