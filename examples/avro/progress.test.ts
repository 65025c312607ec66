/**
 * The Avro backend's progress and cancellation, in both runtimes through the test kit: reports
 * per type with a rising percentage, and a generate cancelled at its first type stops there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { largeElmIrPath } from '../../fixtures/ir/large-elm-model.ts';
import { LONG_TESTS } from '../../fixtures/testing/tier.ts';
import { openExtension } from '../../host/src/testing/index.ts';
import { builtAvro, builtEntry } from '../testing/built.ts';

// The large model's first 20 modules of 25 types (a module refers to earlier ones only, so the
// prefix is a whole IR): 500 types, still one progress report per whole percent, never per type.
// All 60 (1,500 types) with MEP_LONG_TESTS=1: the same reports, three times the work per generate.
const MODULES = LONG_TESTS ? 60 : 20;
const TYPES = MODULES * 25;
const ir = (() => {
  const whole = JSON.parse(readFileSync(largeElmIrPath(), 'utf8'));
  whole.distribution[3].modules = whole.distribution[3].modules.slice(0, MODULES);
  return whole;
})();
const OPTIONS = { dependencies: 'shared', unsupported: 'warn-and-skip' };
const LIMITS = { limits: { callTimeoutMs: 300_000 } };
/** How long a cancel may take to reach a handler held for it: a bound for a hang, not a measure. */
const CANCEL_REACHES_MS = 60_000;

const typeReports = (progress: readonly { kind: string; message?: string; percentage?: number }[]) => progress.filter((p) => p.kind === 'report' && /^Projecting .* types\)$/.test(p.message ?? ''));

const Progress = suite('avro :: progress and cancellation');

for (const runtime of ['process', 'wasm'] as const) {
  Progress(`should report begin, per-type reports with a rising percentage, and end (${runtime})`, async () => {
    const ext = await openExtension(await builtAvro(runtime), LIMITS);
    try {
      const result = await ext.generate({ ir, options: OPTIONS });
      assert.ok(result.success, JSON.stringify(result.diagnostics.slice(0, 3)));
      assert.is(ext.progress[0].kind, 'begin');
      assert.equal([ext.progress.at(-1)?.kind, ext.progress.at(-1)?.percentage], ['end', 100]);
      const types = typeReports(ext.progress);
      // One per whole percent of the projection (0 to 89), never one per type of TYPES.
      assert.is(types.length, 90, JSON.stringify(types.slice(0, 3)));
      assert.match(types[0].message ?? '', new RegExp(`^Projecting .* \\(1/${TYPES} types\\)$`));
      const percentages = types.map((p) => p.percentage as number);
      assert.ok(percentages.every((p, i) => i === 0 || p > percentages[i - 1]), 'rising');
      assert.ok(ext.progress.some((p) => p.message === 'Rendering Avro' && p.percentage === 90));
    } finally {
      await ext.close();
    }
  });

  Progress(`should stop a generate cancelled at its first type, and generate the next request in full (${runtime})`, async () => {
    // The extension, held at its first report until the cancel reaches it (a test fixture): on a
    // loaded machine the process extension made all 90 reports before the cancel arrived.
    const ext = await openExtension(await builtEntry('examples/avro/testing/hold-at-first-report.ts', 'avro-hold-at-first-report', runtime), LIMITS);
    try {
      const controller = new AbortController();
      const stop = ext.session.onProgress((p) => {
        if (p.kind === 'report') controller.abort();
      });
      const code = await ext.generate({ ir, options: OPTIONS }, { signal: controller.signal }).then(() => 0, (e: { code?: number }) => e.code);
      stop();
      assert.is(code, -32800);
      // Held until cancelled: an extension the cancel never reaches never answers.
      const answered = await Promise.race([ext.session.peer.abandonedAnswered().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), CANCEL_REACHES_MS).unref())]);
      assert.ok(answered, `the extension did not answer the cancelled generate within ${CANCEL_REACHES_MS / 1000} s: the cancel never reached its handler`);
      assert.is(typeReports(ext.progress).length, 1, 'it stopped at the type after its first report');
      assert.not.ok(ext.progress.some((p) => p.kind === 'end'), 'it never finished');
      const again = await ext.generate({ ir, options: OPTIONS });
      assert.ok(again.success);
      assert.is(typeReports(ext.progress).length, 91, 'the next generate reported all 90');
    } finally {
      await ext.close();
    }
  });
}

Progress.run();
