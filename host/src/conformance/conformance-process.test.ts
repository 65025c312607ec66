import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { specFromPath, openTransport } from '../registry/launch.ts';
import { runConformance } from './runner.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/extensions/${name}.mjs`, import.meta.url));

async function failedCases(name: string): Promise<string[]> {
  // A short grace: hang-on-shutdown ignores exit and SIGTERM, and every case closes it.
  const spec = specFromPath(fixture(name), { killGraceMs: 200 });
  const results = await runConformance({ open: () => openTransport(spec), requestTimeoutMs: 2_000 });
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

for (const [name, expected] of hostile) {
  Process(`should fail "${expected}" against ${name}`, async () => {
    const failed = await failedCases(name);
    assert.ok(failed.includes(expected), `${name}: failed cases were ${JSON.stringify(failed)}`);
    assert.ok(failed.length < 6, `${name} should break only a few cases, broke ${failed.length}`);
  });
}
Process.run();
