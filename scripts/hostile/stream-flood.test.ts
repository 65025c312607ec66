import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { STREAM_WINDOW_ARTIFACTS } from '../../host/src/session/stream-window.ts';
import { builtArtifactFlood } from './built-guests.ts';
import { describeStreamFlood, runStreamFlood } from './run-flood.ts';
import { byTier } from '../../fixtures/testing/tier.ts';

const MB = 1024 * 1024;
/**
 * 512 MiB in 256 KiB artifacts, into a sink of 128 MiB/s: the guest is faster than the sink. In
 * `npm test`, where time is short: 64 MiB for a guest held back (256 artifacts, four times the
 * window: without back-pressure the sink would have them all in hand at once), 128 MiB for the
 * inline guest (it must outrun its 64 MiB notification budget).
 */
const MIB = byTier(128, 512);
const HELD_MIB = byTier(64, 512);
const artifactsOf = (mib: number): number => (mib * 1024) / 256;

const Stream = suite('hostile :: a guest streaming artifacts faster than the host writes them (short)');

// Each in a process of its own. Without back-pressure the host held what the guest had sent and
// the sink had not yet written: +520 MB of RSS for 512 MiB (`--unbounded` shows it); held back,
// the host has the window (64 artifacts) plus the transport's flow window in hand, and the
// growth is that and the garbage of decoding (measured: 130-150 MB, for 256 MiB and for 1 GiB).
for (const runtime of ['wasm', 'process'] as const) {
  Stream(`should hold a ${runtime} guest back and keep the host's RSS growth bounded`, async () => {
    const report = await runStreamFlood({ guest: await builtArtifactFlood(runtime), mib: HELD_MIB, sinkMibPerS: 128 });
    assert.is(report.outcome, 'answered', describeStreamFlood(report));
    assert.is(report.artifacts, artifactsOf(HELD_MIB), 'every artifact reached the sink');
    // The window, plus what was in flight (a worker's 4 MiB flow window: 16 such artifacts).
    assert.ok(report.mostInHand <= STREAM_WINDOW_ARTIFACTS + 17, describeStreamFlood(report));
    assert.ok(report.peakRss - report.baselineRss < 256 * MB, describeStreamFlood(report));
  });
}

// Inline, nothing can hold the guest back, and the sink cannot even write before the call
// returns: what it streams past the window counts against the notification budget (64 MiB),
// and the call ends there, bounded, with ERR_LIMIT.
Stream('should end an inline guest that outruns the sink at its notification budget (ERR_LIMIT), bounded', async () => {
  const report = await runStreamFlood({ guest: await builtArtifactFlood('wasm'), mib: MIB, sinkMibPerS: 128, isolation: 'inline' });
  assert.is(report.outcome, LocalErrorCode.Limit, describeStreamFlood(report));
  assert.ok(report.peakRss - report.baselineRss < 256 * MB, describeStreamFlood(report));
});

// A disk that stops: the guest is held back in its notify call (worker) or its write (process)
// until the call's deadline, which ends it with ERR_TIMEOUT; the session then closes at once.
for (const runtime of ['wasm', 'process'] as const) {
  Stream(`should end a ${runtime} guest held back by a stuck sink at the call deadline (ERR_TIMEOUT), and close`, async () => {
    const timeoutMs = 1_500;
    const transport = await openTransport(specFromPath(await builtArtifactFlood(runtime), { limits: { callTimeoutMs: timeoutMs } }));
    const session = createSession({ transport, requestTimeoutMs: timeoutMs });
    try {
      await session.start();
      let taken = 0;
      const ir = JSON.parse(readFileSync(new URL('../../fixtures/mep/ir/business-terms.json', import.meta.url), 'utf8'));
      const outcome = await session.generate({ ir, target: 'flood', options: { mib: 256 } }, {
          onArtifact: () => {
            taken++;
            return new Promise<void>(() => {});
          },
        }).then(
        () => 'answered',
        (error: unknown) => (isMepError(error) ? error.code : String(error)),
      );
      assert.is(outcome, LocalErrorCode.Timeout);
      assert.ok(taken <= STREAM_WINDOW_ARTIFACTS + 17, `${taken} taken by a sink that never wrote one`);
    } finally {
      await session.close();
    }
  });
}

// Ctrl+C in the middle of a stream the disk is writing: mep exits 3 and the output is as it was.
Stream('should leave the output as it was when mep generate is interrupted mid-stream', async () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'mep-stream-int-'));
  try {
    const out = join(dir, 'out');
    await mkdir(out);
    await writeFile(join(out, 'keep.txt'), 'old');
    const ir = join(root, 'fixtures/mep/ir/business-terms.json');
    const child = spawn(process.execPath, [join(root, 'bin/mep.mjs'), 'generate', '--extension', await builtArtifactFlood('wasm'), '--target', 'flood', '--input', ir, '--output', out, '--option', 'mib=4096'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let exited = false;
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(((exited = true), code))));
    // Interrupted once files are being staged beside the output.
    const staged = async (): Promise<boolean> => {
      for (const name of await readdir(dir)) {
        if (name.startsWith('.mep-staging-') && (await readdir(join(dir, name, 'new', 'flood')).catch(() => [])).length > 0) return true;
      }
      return false;
    };
    while (!exited && !(await staged())) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.not.ok(exited, `mep ended before it staged a file: ${stderr}`);
    child.kill('SIGINT');
    assert.is(await closed, 3, stderr);
    assert.equal(await readdir(out), ['keep.txt']);
    assert.is(await readFile(join(out, 'keep.txt'), 'utf8'), 'old');
    assert.equal((await readdir(dir)).sort(), ['out'], 'no staging left beside it');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Stream.run();
