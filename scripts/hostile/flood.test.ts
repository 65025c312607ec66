import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { describeFlood, runFlood } from './run-flood.ts';

const MB = 1024 * 1024;

const Flood = suite('hostile :: a wasm guest flooding the host with notifications and logs (short)');

// 512 MiB in one call, each in a process of its own. Before flow control a worker guest's
// notifications piled up in the host's port: +410 MB of RSS per GiB; now the growth is the flow
// window and the garbage of decoding (measured: under 25 MB). `npm run hostile` floods 3 GiB.
for (const [via, isolation] of [['notify', 'worker'], ['log', 'worker'], ['notify', 'inline']] as const) {
  Flood(`should keep the host's RSS growth bounded for a ${via} flood in ${isolation} isolation`, async () => {
    const report = await runFlood({ mib: 512, via, isolation });
    assert.is(report.outcome, 'answered', describeFlood(report));
    assert.is(report.delivered, report.messages + 1, 'every message, then the engine memory line');
    assert.ok(report.peakRss - report.baselineRss < 100 * MB, describeFlood(report));
  });
}

Flood.run();
