/**
 * The Elm frontend's progress and cancellation, in both runtimes through the test kit: a report
 * per module with a rising percentage, and a compile cancelled at its first module stops there.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { elmProject } from '../../fixtures/ir/large-elm-model.ts';
import { openExtension } from '../../host/src/testing/index.ts';
import type { CompileParams } from '../../host/src/protocol/index.ts';
import { builtExample } from '../testing/built.ts';

const MODULES = 8;
// The cancel test's project as a process: V8 compiles a module in tens of milliseconds, so with 8 a
// cancel that waited for a busy machine's scheduler could land after the last one (seen in CI).
const CANCEL_MODULES = { process: 40, wasm: MODULES } as const;
// A loaded machine compiles slowly in the sandbox: the deadline is not what is tested here.
const LIMITS = { limits: { callTimeoutMs: 300_000 } };

function request(modules = MODULES): CompileParams {
  const documents = [...elmProject(modules, 5)]
    .filter(([path]) => path.endsWith('.elm'))
    .map(([path, text]) => ({ uri: `file:///w/${path}`, languageId: 'elm', version: 1, text }));
  return { languageId: 'elm', sources: { root: 'file:///w', documents }, package: { name: 'Scale' } } as CompileParams;
}

const moduleReports = (progress: readonly { kind: string; message?: string; percentage?: number }[]) => progress.filter((p) => p.kind === 'report' && /^Compiling M\d+ \(/.test(p.message ?? ''));

const Progress = suite('elm-frontend :: progress and cancellation');

for (const runtime of ['process', 'wasm'] as const) {
  Progress(`should report begin, one report per module with a rising percentage, and end (${runtime})`, async () => {
    const ext = await openExtension(await builtExample('elm-frontend', runtime), LIMITS);
    try {
      const result = await ext.compile(request());
      assert.ok(result.success, JSON.stringify(result.diagnostics));
      const kinds = ext.progress.map((p) => p.kind);
      assert.is(kinds[0], 'begin');
      assert.is(kinds.at(-1), 'end');
      assert.is(ext.progress.at(-1)?.percentage, 100);
      const modules = moduleReports(ext.progress);
      assert.is(modules.length, MODULES, JSON.stringify(ext.progress.map((p) => p.message)));
      assert.equal(new Set(modules.map((p) => p.message?.split(' ')[1])).size, MODULES, 'each module once');
      const percentages = modules.map((p) => p.percentage as number);
      assert.ok(percentages.every((p, i) => i === 0 || p >= percentages[i - 1]), `rising: ${percentages}`);
      assert.ok(percentages[0] < percentages.at(-1)!);
    } finally {
      await ext.close();
    }
  });

  Progress(`should stop a compile cancelled at its first module, and compile the next request in full (${runtime})`, async () => {
    const ext = await openExtension(await builtExample('elm-frontend', runtime), LIMITS);
    try {
      const controller = new AbortController();
      const stop = ext.session.onProgress((p) => {
        if (p.kind === 'report' && /^Compiling M\d+ \(/.test(p.message ?? '')) controller.abort();
      });
      const code = await ext.compile(request(CANCEL_MODULES[runtime]), { signal: controller.signal }).then(() => 0, (e: { code?: number }) => e.code);
      stop();
      assert.is(code, -32800);
      // The extension's own answer to the cancelled compile has come: it stopped early.
      await ext.session.peer.abandonedAnswered();
      assert.ok(moduleReports(ext.progress).length >= 1, 'the compile had begun');
      assert.ok(moduleReports(ext.progress).length < CANCEL_MODULES[runtime], `compiled ${moduleReports(ext.progress).length} of ${CANCEL_MODULES[runtime]} modules after the cancel`);
      const again = await ext.compile(request());
      assert.ok(again.success, 'the worker starts afresh after a cancelled build');
    } finally {
      await ext.close();
    }
  });
}

Progress.run();
