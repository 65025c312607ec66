import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { workerEntryBuildOptions } from './worker-bundle.ts';

const Bundle = suite('worker-bundle');

Bundle('should leave zod out of the wasm worker (every worker thread parses its bundle)', async () => {
  const entry = fileURLToPath(new URL('./worker-entry.ts', import.meta.url));
  const out = await build({ ...workerEntryBuildOptions(entry), write: false, metafile: true });
  // What the output holds (the metafile's inputs also list modules tree-shaken out).
  const inputs = Object.values(out.metafile.outputs).flatMap((o) => Object.entries(o.inputs).filter(([, i]) => i.bytesInOutput > 0).map(([path]) => path));
  assert.ok(inputs.some((i) => i.includes('@extism/extism')), 'the bundle holds the worker (Extism)');
  assert.equal(inputs.filter((i) => i.includes('node_modules/zod/')), []);
  assert.not.match(out.outputFiles[0]?.text ?? '', /_zod/);
});

Bundle.run();
