import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatReport, growth } from './report.ts';
import { runSoak } from './run-soak.ts';
import type { ScenarioName } from './scenarios.ts';
import { startServedHost } from './server-handle.ts';
import { prepareSoakGuests } from './soak-guests.ts';
import { byTier } from '../../fixtures/testing/tier.ts';

// `npm test` serves 300 sessions, `npm run test:long` 1,000 (`npm run soak` runs longer soaks).
const SESSIONS = byTier(200, 1_000);

/** The CI mix: cheap sessions of every kind but hang-on-shutdown (which costs its 1 s grace). */
const CI_MIX: readonly ScenarioName[] = [
  'wasmPing', 'processCalls', 'abruptWasm', 'wasmPing', 'crash',
  'wasmGenerate', 'wasmPing', 'abruptProcess', 'processCalls', 'timeout',
  'wasmPing', 'cancel', 'wasmPing', 'abruptWasm', 'processCalls',
  'wasmPing', 'trap', 'wasmGenerate', 'wasmPing', 'processCalls',
];

const Soak = suite('mep serve :: soak');

Soak(`should serve ${SESSIONS.toLocaleString('en')} sessions (wasm and process, some abrupt) answering every call, with memory after GC within +10 % of the value after 100`, async () => {
  const guests = await prepareSoakGuests();
  const host = await startServedHost();
  try {
    const result = await runSoak({ host, guests, sessions: SESSIONS, concurrency: 10, checkpointEvery: 100, mix: CI_MIX, maxMs: 240_000 });
    const report = formatReport(result, 100);
    const { tally } = result;
    assert.is(result.timedOut, false, report);
    assert.is(tally.served, SESSIONS, report);
    assert.ok(tally.abrupt >= SESSIONS / 10, report);
    assert.is(tally.unanswered, 0, `every call is answered\n${report}`);
    assert.is(tally.untyped, 0, `every refusal carries a typed code\n${report}`);
    assert.equal(tally.surprises, [], report);
    // The hostile kinds were refused with the typed errors they must produce.
    assert.ok((tally.errors['-32010/ERR_EXTENSION_CRASHED'] ?? 0) > 0, report);
    assert.ok((tally.errors['-32010/ERR_TIMEOUT'] ?? 0) > 0, report);
    assert.ok((tally.errors['-32800'] ?? 0) > 0, report);
    const last = result.checkpoints.at(-1);
    assert.is(last?.sample.sessions, 0, `no session outlives its client\n${report}`);
    const g = growth(result.checkpoints, 100);
    assert.ok(g !== undefined, report);
    assert.ok(g.heap <= 0.1, `heap after GC grew ${(g.heap * 100).toFixed(1)} %\n${report}`);
    assert.ok(g.rss <= 0.1, `RSS after GC grew ${(g.rss * 100).toFixed(1)} %\n${report}`);
  } finally {
    await host.close();
  }
});

Soak.run();
