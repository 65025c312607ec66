import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runStdinJam } from './run-flood.ts';

const MB = 1024 * 1024;
const Jam = suite('hostile :: a process extension that does not read its stdin');

Jam('should hold the host RSS growth under 100 MB while the extension floods requests, then end it :: ERR_LIMIT', async () => {
  // 3 s of a flood that grew the host by 690-886 MB before the bound (issue 31).
  const report = await runStdinJam(3_000);
  assert.is(report.outcome, 'ERR_LIMIT');
  assert.is(report.limit, 'maxStdinBacklogBytes');
  const growth = report.peakRss - report.baselineRss;
  assert.ok(growth < 100 * MB, `the host grew by ${(growth / MB).toFixed(0)} MB`);
});

Jam.run();
