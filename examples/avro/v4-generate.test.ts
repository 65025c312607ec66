import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { convertV3ToV4 } from './src/v3-to-v4.ts';
import { REPO_ROOT, builtAvro } from '../testing/built.ts';

const reference = (file: string): string => join(REPO_ROOT, 'fixtures/ir/reference', file);
// Every v4 reference document that is a Library distribution (all six are).
const LIBRARIES = [
  'v4-morphir-bdd-v4-library-distribution.json',
  'v4-morphir-website-books-and-records-example.json',
  'v4-morphir-website-complete-example.json',
  'v4-rust-integration-v4-library-distribution.json',
  'v4-rust-projection-canonical-customer-v4.json',
  'v4-rust-simple_v4.json',
];

async function generate(input: string, out: string, options: string[] = []): Promise<{ code: number; report: { success: boolean; written?: string[]; diagnostics: { code?: string; message: string }[] }; stderr: string }> {
  const io = captureIo(REPO_ROOT);
  const args = ['generate', '--extension', await builtAvro('wasm'), '--target', 'avro', '--input', input, '--output', out, '--json'];
  const code = await main([...args, ...options.flatMap((o) => ['--option', o])], io);
  return { code, report: JSON.parse(io.stdout.join('\n')), stderr: io.stderr.join('\n') };
}

const V4 = suite('avro :: mep generate on IR v4 (wasm)');

V4('should advertise IR versions 3 and 4', async () => {
  const io = captureIo(REPO_ROOT);
  assert.is(await main(['describe', await builtAvro('wasm')], io), 0, io.stderr.join('\n'));
  assert.equal(JSON.parse(io.stdout.join('\n')).capabilities.backend.irVersions, ['3', '4']);
});

V4('should accept every v4 reference Library distribution', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-v4-'));
  try {
    for (const file of LIBRARIES) {
      const strict = await generate(reference(file), join(dir, file, 'strict'));
      // The website's complete example refers to types it does not define (`…#outflows`, `…#assets`):
      // the document is read, and only those dangling references are reported.
      if (file === 'v4-morphir-website-complete-example.json') {
        assert.is(strict.code, 1, file);
        assert.ok(strict.report.diagnostics.every((d) => d.code === 'AVRO001' && /#(outflows|supplemental|assets)\b/.test(d.message)), JSON.stringify(strict.report.diagnostics));
      } else {
        assert.is(strict.code, 0, `${file}: ${strict.stderr} ${JSON.stringify(strict.report.diagnostics)}`);
      }
      const lenient = await generate(reference(file), join(dir, file, 'lenient'), ['unsupported=warn-and-skip']);
      assert.is(lenient.code, 0, `${file}: ${lenient.stderr}`);
      assert.ok(lenient.report.success, file);
    }
    const books = await readdir(join(dir, 'v4-morphir-website-books-and-records-example.json', 'strict'), { recursive: true });
    assert.ok(books.some((f) => f.endsWith('DealEvent.avsc')), books.join(', '));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

V4('should write the same files from a model as v3 and as v4', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-v4-'));
  try {
    const v3Path = join(REPO_ROOT, 'fixtures/ir/orders/morphir-ir.json');
    const v4Path = join(dir, 'orders-v4.json');
    await writeFile(v4Path, JSON.stringify(convertV3ToV4(JSON.parse(await readFile(v3Path, 'utf8')), 'compact')));
    const v3 = await generate(v3Path, join(dir, 'v3'), ['unsupported=warn-and-skip']);
    const v4 = await generate(v4Path, join(dir, 'v4'), ['unsupported=warn-and-skip']);
    assert.equal([v3.code, v4.code], [0, 0], v3.stderr + v4.stderr);
    const files = (await readdir(join(dir, 'v3'), { recursive: true })).sort();
    assert.equal((await readdir(join(dir, 'v4'), { recursive: true })).sort(), files);
    for (const f of files.filter((name) => name.endsWith('.avsc'))) {
      assert.is(await readFile(join(dir, 'v4', f), 'utf8'), await readFile(join(dir, 'v3', f), 'utf8'), f);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

V4.run();
