import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFile } from 'node:fs/promises';
import { buildGuest } from '../../../../build/guest/index.ts';
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const fixture = join(root, 'fixtures/extensions/deep-json.mjs');
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

interface Run {
  code: number;
  json: { success: boolean; written?: string[]; error?: { code: string; data?: Record<string, unknown> } };
  entries: string[];
  transcript: { direction: string; message?: { method?: string; result?: unknown } }[];
  dir: string;
}

async function generate(where: string, depth: number, body: (run: Run) => Promise<void> | void, extra: string[] = []): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-deep-'));
  try {
    const io = captureIo(dir);
    const args = ['generate', '--extension', fixture, '--target', 'echo', '--input', ir, '--output', 'out', '--json', '--transcript', 't.jsonl'];
    const code = await main([...args, '--option', `depth=${depth}`, '--option', `where="${where}"`, ...extra], io);
    const lines = (await readFile(join(dir, 't.jsonl'), 'utf8')).trim().split('\n');
    // Every line of the transcript is one JSON object: none was dropped or cut.
    const transcript = lines.map((line) => JSON.parse(line) as Run['transcript'][number]);
    await body({ code, json: JSON.parse(io.stdout.join('\n')), entries: (await readdir(dir)).sort(), transcript, dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const Deep = suite('cli :: JSON nested deeper than the host reads');

for (const where of ['diagnostic', 'log', 'result']) {
  Deep(`should refuse 100,000 levels in ${where === 'log' ? 'a log notification' : `the ${where}`} with a typed error before anything is written :: hostile`, () =>
    generate(where, 100_000, ({ code, json, entries, transcript }) => {
      assert.is(code, 3);
      assert.is(json.success, false);
      assert.is(json.error?.code, 'ERR_LIMIT');
      assert.is(json.error?.data?.limit, 'maxJsonDepth');
      assert.equal(entries, ['t.jsonl'], 'no output directory, no staging left');
      assert.ok(transcript.some((e) => e.message?.method === 'morphir.backend.generate'));
    }),
  );
}

Deep('should accept a result exactly at the limit, and write it, print it and record it whole', () =>
  // The diagnostic's data sits 4 levels down: message, result, diagnostics, the diagnostic.
  generate('diagnostic', MAX_JSON_DEPTH - 4, async ({ code, json, entries, transcript, dir }) => {
    assert.is(code, 0);
    assert.equal([json.success, json.written], [true, ['deep/ok.txt']]);
    assert.equal(entries, ['out', 't.jsonl']);
    assert.is(await readFile(join(dir, 'out/deep/ok.txt'), 'utf8'), 'written');
    assert.ok(transcript.some((e) => e.direction === 'extension->host' && e.message?.result !== undefined && JSON.stringify(e.message).includes('"deep data"')), 'the answer is in the transcript');
  }),
);

Deep('should refuse one level more than the limit', () =>
  generate('diagnostic', MAX_JSON_DEPTH - 3, ({ code, json }) => {
    assert.is(code, 3);
    assert.is(json.error?.code, 'ERR_LIMIT');
  }),
);

Deep('should write 100,000 levels of brackets that are only the text of an artifact :: strings', () =>
  generate('artifact', 100_000, async ({ code, json, dir }) => {
    assert.is(code, 0, JSON.stringify(json));
    const content = await readFile(join(dir, 'out/deep/ok.txt'), 'utf8');
    assert.is(content.length, 200_000);
    assert.ok(content.startsWith('[[[') && content.endsWith(']]]'));
  }),
);

Deep('should print a deep and wide answer without building one string: 140,000 leaves 1,990 levels down :: amplification', () =>
  // 280 KB on the wire; indented in full, 557 million characters, past V8's longest string, which
  // failed the run with an untyped "Invalid string length" after the files were written.
  generate(
    'diagnostic',
    MAX_JSON_DEPTH - 10,
    async ({ code, json, transcript }) => {
      assert.is(code, 0, JSON.stringify(json).slice(0, 500));
      assert.equal([json.success, json.written], [true, ['deep/ok.txt']]);
      assert.ok(transcript.some((e) => e.direction === 'extension->host' && e.message?.result !== undefined));
    },
    ['--option', 'leaves=140000'],
  ),
);

// A frontend whose IR is the same deep and wide value, built as a process extension.
const WIDE_FRONTEND = `import { defineExtension } from 'mep-runtime/guest-pdk';
export default defineExtension({
  info: { id: 'acme.wide', name: 'wide', version: '0.1.0' },
  frontend: {
    languages: [{ id: 'wide', fileExtensions: ['.wide'] }],
    irVersions: ['3'],
    compile() {
      let value = Array(140000).fill(0);
      for (let i = 0; i < 1900; i++) value = [value];
      return { irVersion: '3', ir: { formatVersion: 3, wide: value } };
    },
  },
});
`;

Deep('should write and print a deep and wide IR from mep compile without building one string :: amplification', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-wide-'));
  try {
    await writeFile(join(dir, 'wide.ts'), WIDE_FRONTEND);
    await writeFile(join(dir, 'a.wide'), 'module A');
    const { outFile } = await buildGuest({ entry: join(dir, 'wide.ts'), outFile: join(dir, 'wide.mjs'), runtime: 'process', cwd: dir, typecheck: false });
    const written = captureIo(dir);
    const code = await main(['compile', 'a.wide', '--extension', outFile, '--output', 'ir.json', '--json'], written);
    assert.is(code, 0, written.stdout.join('\n').slice(0, 500));
    const ir = JSON.parse(await readFile(join(dir, 'ir.json'), 'utf8')) as { wide: unknown[] };
    assert.is(JSON.stringify(ir.wide).length, 1901 * 2 + 140_000 * 2 - 1);
    const printed = captureIo(dir);
    assert.is(await main(['compile', 'a.wide', '--extension', outFile], printed), 0, printed.stderr.join('\n'));
    assert.is(JSON.stringify((JSON.parse(printed.stdout.join('\n')) as { wide: unknown }).wide), JSON.stringify(ir.wide));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deep('should refuse an input IR file nested deeper than a request may carry, naming the file, before any extension runs :: hostile', async () => {
  // Before, 3,000,000 levels were read and sent (a wasm guest reads 2,000), and --transcript
  // failed with "Maximum call stack size exceeded" as if the disk were full.
  const dir = await mkdtemp(join(tmpdir(), 'mep-deep-'));
  try {
    for (const [depth, expected] of [[1_000_000, 'ERR_LIMIT'], [MAX_JSON_DEPTH - 2, 'ERR_LIMIT'], [MAX_JSON_DEPTH - 3, undefined]] as const) {
      const input = join(dir, `ir-${depth}.json`);
      await writeFile(input, `{"formatVersion":3,"distribution":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`);
      const io = captureIo(dir);
      await main(['generate', '--extension', join(root, 'fixtures/extensions/well-behaved.mjs'), '--target', 'echo', '--input', input, '--output', 'out', '--json', '--transcript', 't.jsonl'], io);
      const error = (JSON.parse(io.stdout.join('\n')) as Run['json']).error;
      assert.is(error?.code, expected, `${depth} levels: ${JSON.stringify(error)}`);
      if (expected === undefined) continue;
      assert.equal([error?.data?.limit, error?.data?.file], ['maxJsonDepth', input]);
      assert.not.ok((await readFile(join(dir, 't.jsonl'), 'utf8').catch(() => '')).includes('morphir.backend.generate'), 'nothing was sent');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deep.run();
