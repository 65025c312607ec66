import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { largeElmIrPath } from '../../fixtures/ir/large-elm-model.ts';
import { DEFAULT_WASM_LIMITS } from '../../host/src/transport/wasm/index.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession, type Session } from '../../host/src/session/session.ts';
import type { Artifact } from './src/json-syntax.ts';
import { assertParsesWithAvsc, byLoadOrder, loadSharedWithAvsc } from './src/test-support.ts';
import { builtAvro } from '../testing/built.ts';
import { seededSample } from '../../fixtures/testing/tier.ts';

// The big real model: 60 modules × 25 types compiled by morphir-elm 2.82.0 (built once into
// .cache/ir by the committed generator; the first run on a machine takes minutes).
const irPath = largeElmIrPath({ modules: 60, typesPerModule: 25 });
const options = { unsupported: 'warn-and-skip', dependencies: 'shared' };

const Scale = suite('avro :: a 1,500-type morphir-elm model under default limits');

/** A started session with the Avro example built for `runtime`, and the guest memory it reports after each call. */
async function openAvro(runtime: 'wasm' | 'process'): Promise<{ session: Session; memory: number[] }> {
  const memory: number[] = [];
  const spec = specFromPath(await builtAvro(runtime));
  const transport = await openTransport(spec, (entry) => {
    const match = /^guest memory: (\d+) bytes after handle$/.exec(entry.message);
    if (match) memory.push(Number(match[1]));
  });
  const session = createSession({ transport });
  await session.start();
  return { session, memory };
}

Scale('should be a real morphir-elm IR of at least 15 MB', () => {
  assert.ok(statSync(irPath).size >= 15_000_000, `${irPath}: ${statSync(irPath).size} bytes`);
  const ir = JSON.parse(readFileSync(irPath, 'utf8'));
  assert.is(ir.formatVersion, 3);
  assert.is(ir.distribution[3].modules.length, 60);
});

for (const runtime of ['wasm', 'process'] as const) {
  Scale(`should generate avsc-loadable shared artifacts as ${runtime}`, async () => {
    const { session, memory } = await openAvro(runtime);
    try {
      const started = performance.now();
      const result = await session.generate({ ir: JSON.parse(readFileSync(irPath, 'utf8')), target: 'avro', options });
      const elapsed = performance.now() - started;
      assert.ok(result.success, JSON.stringify(result.diagnostics.slice(0, 3)));
      // One Int-keyed Dict per module has no Avro form: a warning, and that record is skipped.
      assert.is(result.diagnostics.filter((d) => d.code === 'AVRO001').length, 60);
      assert.is(result.diagnostics.length, 60);
      const names = loadSharedWithAvsc(byLoadOrder(result.artifacts));
      // Every record, enum and payload type of the model is defined (the skipped ones aside).
      assert.ok(names.length >= 1500 - 60, `${names.length} named types`);
      const bytes = result.artifacts.reduce((n, a) => n + a.content.length, 0);
      assert.ok(bytes < 4_000_000, `${bytes} bytes of output`);
      const peak = memory.length > 0 ? Math.max(...memory) : undefined;
      if (runtime === 'wasm') {
        assert.ok(peak !== undefined && peak <= DEFAULT_WASM_LIMITS.maxMemoryBytes, `guest memory ${peak}`);
      }
      console.log(
        `  ${runtime}: ${result.artifacts.length} artifacts, ${(bytes / 1e6).toFixed(2)} MB in ${elapsed.toFixed(0)} ms` +
          (peak !== undefined ? `, guest memory peak ${(peak / 2 ** 20).toFixed(0)} MiB of ${DEFAULT_WASM_LIMITS.maxMemoryBytes / 2 ** 20} MiB` : ''),
      );
    } finally {
      await session.close();
    }
  });
}

// Over 300 MB streamed per run: `npm test` streams it in one runtime (MEP_TEST_SEED picks which),
// `npm run test:long` in both.
for (const runtime of seededSample(['wasm', 'process'] as const, 1, 'avro-scale')) {
  Scale(`should generate the default self-contained layout (over 300 MB) as ${runtime} under the default limits, streamed file by file`, async () => {
    // Every default limit: 256 MiB of memory, 64 MiB per message and the 30 s call deadline. It
    // streams over 300 MB: about 2.4 s in wasm and 10-21 s as a process on a quiet 2-core machine
    // (2026-12-05), so a process run on a machine loaded 4× or more can meet the 30 s deadline.
    const { session, memory } = await openAvro(runtime);
    try {
      const started = performance.now();
      let files = 0;
      let chars = 0;
      let largest = 0;
      const sample: Artifact[] = [];
      const result = await session.generate(
        { ir: JSON.parse(readFileSync(irPath, 'utf8')), target: 'avro', options: { unsupported: 'warn-and-skip' } },
        {
          // Counted, not kept: the host holds one artifact at a time too.
          onArtifact(artifact) {
            files++;
            chars += artifact.content.length;
            largest = Math.max(largest, artifact.content.length);
            if (files % 97 === 1) sample.push({ path: artifact.path, content: artifact.content, binary: false });
          },
        },
      );
      const elapsed = performance.now() - started;
      assert.ok(result.success, JSON.stringify(result.diagnostics.slice(0, 3)));
      assert.is(result.artifacts.length, 0, 'every artifact was streamed');
      assert.is(result.streamedArtifacts, files);
      assert.ok(files >= 1500 - 60, `${files} files`);
      // The whole output is far over the 64 MiB message limit; each file is well under it.
      assert.ok(chars > 4 * DEFAULT_WASM_LIMITS.maxResponseBytes, `${chars} characters`);
      assert.ok(largest < DEFAULT_WASM_LIMITS.maxResponseBytes, `largest ${largest}`);
      await assertParsesWithAvsc(sample);
      // The report says how big the shared layout would be, and how to ask for it.
      const hint = result.diagnostics.find((d) => d.code === 'AVRO007');
      assert.is(hint?.severity, 'info');
      assert.match(hint?.message ?? '', /--option dependencies=shared/);
      const data = hint?.data as { chars: number; sharedChars: number; sharedFiles: number };
      assert.is(data.chars, chars);
      assert.ok(data.sharedChars > 0 && data.sharedChars * 50 < chars, `shared ${data.sharedChars}`);
      const peak = memory.length > 0 ? Math.max(...memory) : undefined;
      if (runtime === 'wasm') assert.ok(peak !== undefined && peak <= DEFAULT_WASM_LIMITS.maxMemoryBytes, `guest memory ${peak}`);
      console.log(
        `  ${runtime}, self-contained: ${files} artifacts streamed, ${(chars / 1e6).toFixed(0)} MB (largest ${(largest / 1e6).toFixed(2)} MB) in ${elapsed.toFixed(0)} ms` +
          (peak !== undefined ? `, guest memory peak ${(peak / 2 ** 20).toFixed(0)} MiB of ${DEFAULT_WASM_LIMITS.maxMemoryBytes / 2 ** 20} MiB` : ''),
      );
    } finally {
      await session.close();
    }
  });
}

Scale.run();
