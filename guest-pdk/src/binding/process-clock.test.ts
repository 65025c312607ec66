import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuest } from '../../../build/guest/index.ts';
import { openTransport, specFromPath } from '../../../host/src/registry/launch.ts';
import { withGrants, type ClockRandomGrants } from '../../../host/src/registry/launch-grants.ts';
import { createSession } from '../../../host/src/session/session.ts';

// One extension, built for both runtimes: 'shown' sleeps an hour and shows dates read from the
// clock; 'timing' only times itself. Each call answers with what it saw.
const SOURCE = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export default defineExtension({
  info: { id: 'acme.clock', name: 'clock', version: '1.0.0' },
  backend: {
    targets: ['shown', 'timing'],
    irVersions: ['3'],
    async generate({ target }) {
      if (target === 'timing') {
        const t0 = Date.now(), p0 = performance.now();
        await sleep(5);
        return { artifacts: [textArtifact('out.json', JSON.stringify([Date.now() - t0, performance.now() - p0]))] };
      }
      const start = Date.now();
      await sleep(3_600_000);
      const order: string[] = [];
      setTimeout(() => order.push('b'), 2); setTimeout(() => order.push('a'), 1); await sleep(3);
      return { artifacts: [textArtifact('out.json', JSON.stringify([start, Date.now(), performance.now(), new Date().toISOString(), Date().slice(0, 15), order, performance.timeOrigin]))] };
    },
  },
});
`;

let built: Promise<{ dir: string; wasm: string; mjs: string }> | undefined;
const extensions = () =>
  (built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mep-process-clock-'));
    writeFileSync(join(dir, 'ext.ts'), SOURCE);
    const wasm = await buildGuest({ entry: join(dir, 'ext.ts'), outFile: join(dir, 'ext.wasm'), cwd: dir });
    const mjs = await buildGuest({ entry: join(dir, 'ext.ts'), outFile: join(dir, 'ext.mjs'), runtime: 'process', cwd: dir });
    return { dir, wasm: wasm.outFile, mjs: mjs.outFile };
  })());

/** The answers of `targets` in one session, and the clock warnings it logged. */
async function run(path: string, targets: string[], grants?: ClockRandomGrants): Promise<{ answers: unknown[]; warnings: string[] }> {
  const warnings: string[] = [];
  const keep = (level: string, message: string) => {
    if (level === 'warn' && /clock|SOURCE_DATE_EPOCH/.test(message)) warnings.push(message);
  };
  const session = createSession({ transport: await openTransport(withGrants(specFromPath(path), grants), (e) => keep(e.level, e.message)) });
  session.onLog((l) => keep(l.level, l.message));
  try {
    await session.start();
    const answers: unknown[] = [];
    for (const target of targets) {
      const r = await session.generate({ ir: { formatVersion: 3, distribution: [] }, target, options: {} });
      answers.push(JSON.parse((r.artifacts[0] as { content: string }).content));
    }
    return { answers, warnings };
  } finally {
    await session.close();
  }
}

const Y2K = Date.UTC(2000, 0, 1);
const Clock = suite('process binding :: the reproducible clock, as the sandbox has it');

Clock('should start every call at 2000-01-01, sleep virtually and warn once, in wasm and in process alike', async () => {
  const e = await extensions();
  const wasm = await run(e.wasm, ['shown', 'shown']);
  const processed = await run(e.mjs, ['shown', 'shown']);
  const expected = [Y2K, Y2K + 3_600_003, 3_600_003, '2000-01-01T01:00:00.003Z', 'Sat Jan 01 2000', ['a', 'b'], Y2K];
  assert.equal(wasm.answers, [expected, expected]);
  assert.equal(processed.answers, wasm.answers);
  assert.is(wasm.warnings.length, 1, wasm.warnings.join('\n'));
  assert.is(processed.warnings.length, 1, processed.warnings.join('\n'));
});

Clock("should start at the host's SOURCE_DATE_EPOCH", async () => {
  const e = await extensions();
  for (const path of [e.wasm, e.mjs]) {
    const { answers } = await run(path, ['shown'], { sourceDateEpoch: 1_700_000_000 });
    assert.equal((answers[0] as unknown[]).slice(0, 2), [1_700_000_000_000, 1_700_003_600_003]);
  }
});

Clock('should not warn an extension that only times itself', async () => {
  const e = await extensions();
  for (const path of [e.wasm, e.mjs]) {
    const { answers, warnings } = await run(path, ['timing', 'timing']);
    assert.equal(answers, [[5, 5], [5, 5]]);
    assert.equal(warnings, []);
  }
});

Clock('should give the real clock with the grant', async () => {
  const e = await extensions();
  for (const path of [e.wasm, e.mjs]) {
    const before = Date.now();
    const { answers, warnings } = await run(path, ['timing'], { clock: true });
    const [elapsed] = (answers[0] as number[]);
    assert.ok(elapsed! >= 4 && Date.now() - before >= 5, String(elapsed));
    assert.equal(warnings, []);
  }
});

Clock.after(async () => {
  if (built) rmSync((await built).dir, { recursive: true, force: true });
});

Clock.run();
