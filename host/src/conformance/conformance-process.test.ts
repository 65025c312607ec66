import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { specFromPath, openTransport } from '../registry/launch.ts';
import { createProcessTransport, type ProcessTransportOptions } from '../transport/process.ts';
import { containment } from '../transport/process/containment.ts';
import { runConformance } from './runner.ts';
import { seededSample } from '../../../fixtures/testing/tier.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/extensions/${name}.mjs`, import.meta.url));

async function failedCases(name: string, filter?: string): Promise<string[]> {
  // A short grace: hang-on-shutdown ignores exit and SIGTERM, and every case closes it.
  const spec = specFromPath(fixture(name), { killGraceMs: 200 });
  const results = await runConformance({ open: () => openTransport(spec), requestTimeoutMs: 2_000, ...(filter ? { filter } : {}) });
  return results.filter((r) => r.status === 'failed').map((r) => r.name);
}

const Process = suite('conformance :: process fixtures');

Process('should pass every case against the well-behaved process extension', async () => {
  assert.equal(await failedCases('well-behaved'), []);
});

// Each hostile fixture behaves until its one flaw; the suite must name the case it breaks.
const hostile: [string, string][] = [
  ['log-on-stdout', 'standard output carries protocol frames only'],
  ['crash-mid-request', 'generate returns artifacts with safe relative paths'],
  ['hang-on-shutdown', 'exit after shutdown ends the extension'],
  ['wrong-id', 'initialize with a string id'],
  ['malformed-frame', 'extension.info and extension.capabilities match initialize'],
  ['huge-frame', 'generate returns artifacts with safe relative paths'],
];

// Every case opens a session (a process start), so the whole suite per fixture is most of this
// file's time: `npm test` runs it against two fixtures (MEP_TEST_SEED picks them) and only the
// expected case against the others; `npm run test:long` runs the whole suite against each.
const wholeSuite = new Set(seededSample(hostile.map(([name]) => name), 2, 'conformance-process'));
for (const [name, expected] of hostile) {
  const whole = wholeSuite.has(name);
  Process(`should fail "${expected}" against ${name}${whole ? ', and only a few cases' : ''}`, async () => {
    const failed = await failedCases(name, whole ? undefined : expected);
    assert.ok(failed.includes(expected), `${name}: failed cases were ${JSON.stringify(failed)}`);
    assert.ok(failed.length < 6, `${name} should break only a few cases, broke ${failed.length}`);
  });
}

/** Ends every process whose command line holds `token` (what a fixture left behind). */
function endLeftovers(token: string): void {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(token)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // Gone, or not ours to read.
    }
  }
}

/** The result of the child-process case against setsid-escape contained as `how`. */
async function setsidEscape(how: ProcessTransportOptions['containment']): Promise<string | undefined> {
  const token = randomUUID();
  try {
    const open = async () => createProcessTransport({ name: 'setsid-escape', command: process.execPath, args: [fixture('setsid-escape')], cwd: tmpdir(), env: { FIXTURE_TOKEN: token }, killGraceMs: 500, containment: how });
    const results = await runConformance({ open, requestTimeoutMs: 5_000, filter: 'child process behind' });
    const [result] = results;
    return result?.status === 'failed' ? result.reason ?? 'failed' : result?.status;
  } finally {
    endLeftovers(token);
  }
}

Process('should fail "shuts down without leaving a child process behind" against setsid-escape in a process group only', async () => {
  if (process.platform !== 'linux') return;
  const outcome = await setsidEscape('process-group');
  assert.ok(outcome !== 'passed' && outcome !== undefined, String(outcome));
  assert.match(String(outcome), /outlived the session/);
});

Process('should pass "shuts down without leaving a child process behind" against setsid-escape in a PID namespace', async () => {
  if (containment().kind !== 'pid-namespace') return; // the README says where it is not available
  assert.is(await setsidEscape('auto'), 'passed');
});

Process.run();
