import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { builtAvro } from '../../../../examples/testing/built.ts';
import { repoRoot, withProject } from '../../registry/test-support.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

// The real Avro backend on a valid IR carrying 8 MB of padding it must hold while it parses the request.
const Memory = suite('cli :: limits: an out-of-memory names the limit and the flag, in both runtimes');

for (const runtime of ['wasm', 'process'] as const) {
  Memory(`should name --max-memory 16MiB and size the raise from it (${runtime}) :: hostile`, () =>
    withProject(async (t) => {
      const ir = JSON.parse(await readFile(join(repoRoot, 'fixtures/ir/customer/morphir-ir.json'), 'utf8'));
      await writeFile(join(t.project, 'big.json'), JSON.stringify({ ...ir, padding: 'x'.repeat(8_000_000) }));
      const io = captureIo(t.project);
      const code = await main(['generate', '--extension', await builtAvro(runtime), '--target', 'avro', '--input', 'big.json', '--output', 'out', '--json', '--max-memory', '16MiB'], io);
      const error = JSON.parse(io.stdout.join('\n')).error as { code: string; message: string; data: Record<string, unknown> };
      assert.is(code, 3, io.stderr.join('\n'));
      assert.is(error.code, 'ERR_LIMIT', error.message);
      assert.is(error.data.limit, 'maxMemoryBytes');
      assert.ok(error.message.includes('16777216 bytes'), error.message);
      assert.ok(error.message.includes('--max-memory 32MiB'), `the same raise in both runtimes, from the limit that failed: ${error.message}`);
      assert.not.ok(/failed: null|512MiB/.test(error.message), error.message);
    }),
  );
}

Memory.run();
