import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from '../../host/src/protocol/errors.ts';
import { STREAM_WINDOW_ARTIFACTS } from '../../host/src/session/stream-window.ts';
import { builtArtifactFlood } from './built-guests.ts';
import { describeStreamFlood, runStreamFlood } from './run-flood.ts';

const MB = 1024 * 1024;
/** 512 MiB in 256 KiB artifacts, into a sink of 128 MiB/s: the guest is faster than the sink. */
const MIB = 512;
const ARTIFACTS = (MIB * 1024) / 256;

const Stream = suite('hostile :: a guest streaming artifacts faster than the host writes them (short)');

// Each in a process of its own. Without back-pressure the host held what the guest had sent and
// the sink had not yet written: +520 MB of RSS for 512 MiB (`--unbounded` shows it); held back,
// the host has the window (64 artifacts) plus the transport's flow window in hand, and the
// growth is that and the garbage of decoding (measured: 130-150 MB, for 256 MiB and for 1 GiB).
for (const runtime of ['wasm', 'process'] as const) {
  Stream(`should hold a ${runtime} guest back and keep the host's RSS growth bounded`, async () => {
    const report = await runStreamFlood({ guest: await builtArtifactFlood(runtime), mib: MIB, sinkMibPerS: 128 });
    assert.is(report.outcome, 'answered', describeStreamFlood(report));
    assert.is(report.artifacts, ARTIFACTS, 'every artifact reached the sink');
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

Stream.run();
