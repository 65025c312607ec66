import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { captureIo } from '../io.ts';
import { main } from '../main.ts';
import { openTranscript } from './transcript.ts';
import { withTempDir } from '../../../../fixtures/testing/temp-dir.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const deepJson = join(root, 'fixtures/extensions/deep-json.mjs');
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

const withDir = (fn: (dir: string) => Promise<void>) => withTempDir('mep-transcript-', fn);

/** `mep generate` of the deep-json fixture (answering 1 level deep: an ordinary answer). */
async function generate(dir: string, input: string, transcript: string): Promise<{ code: number; json: { success: boolean; error?: { code: string; data: Record<string, unknown> } } }> {
  const io = captureIo(dir);
  const code = await main(['generate', '--extension', deepJson, '--target', 'echo', '--input', input, '--output', 'out', '--json', '--transcript', transcript, '--option', 'depth=1'], io);
  return { code, json: JSON.parse(io.stdout.join('\n')) };
}

const Transcript = suite('cli :: --transcript never drops a message silently');

Transcript('should fail the run, typed and before writing, when the transcript file cannot be written :: hostile', () =>
  withDir(async (dir) => {
    if (!existsSync('/dev/full')) return;
    const { code, json } = await generate(dir, ir, '/dev/full');
    assert.is(code, 3);
    assert.is(json.error?.code, LocalErrorCode.Transcript);
    assert.is(json.error?.data.path, '/dev/full');
    assert.ok((json.error?.data.unrecorded as number) >= 4, 'every message of the session is counted');
    assert.not.ok((await readdir(dir)).includes('out'), 'nothing written');
  }),
);

Transcript('should mark the place of a message it cannot serialize, record the ones after it, and fail the run typed :: hostile', () =>
  withDir(async (dir) => {
    // An input deep enough to defeat JSON.stringify is refused before it is read now (ERR_LIMIT
    // maxJsonDepth), so the transcript is given such a message directly: a BigInt, which no JSON holds.
    const path = join(dir, 't.jsonl');
    const transcript = openTranscript({ path, redactor: captureIo(dir).redactor });
    const sent: unknown[] = [];
    const transport = { name: 'double', send: (m: unknown) => void sent.push(m), onMessage: () => () => {}, onClose: () => () => {}, close: async () => {} };
    const wrapped = transcript.wrap(transport as never);
    wrapped.send({ jsonrpc: '2.0', id: 1, method: 'morphir.backend.generate', params: { n: 1n } } as never);
    wrapped.send({ jsonrpc: '2.0', method: 'morphir.shutdown' } as never);
    assert.is(sent.length, 2, 'both messages go to the extension');
    const error = transcript.failure;
    transcript.close();
    const lines = (await readFile(path, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const marked = lines.find((line) => line.unrecorded !== undefined);
    assert.ok(marked, 'a line stands in for the message');
    assert.equal([marked.direction, marked.unrecorded.method, marked.unrecorded.code], ['host->extension', 'morphir.backend.generate', LocalErrorCode.Transcript]);
    assert.ok(lines.some((line) => line.message?.method === 'morphir.shutdown'), 'the messages after it are recorded');
    assert.is(error?.code, LocalErrorCode.Transcript, 'the run is failed, typed');
    assert.is((error?.data as { unrecorded: number }).unrecorded, 1);
  }),
);

Transcript('should refuse an input too deep for a request before anything is sent or recorded :: hostile', () =>
  withDir(async (dir) => {
    const deep = join(dir, 'deep-ir.json');
    await writeFile(deep, `{"formatVersion":3,"distribution":["Library",[],[],{"deep":${'['.repeat(10_000)}${']'.repeat(10_000)}}]}`);
    const { code, json } = await generate(dir, deep, 't.jsonl');
    assert.is(code, 3);
    assert.is(json.error?.code, 'ERR_LIMIT');
    assert.not.ok((await readdir(dir)).includes('out'), 'nothing written');
  }),
);

Transcript('should record why the extension was stopped when the host refused its message', () =>
  withDir(async (dir) => {
    const io = captureIo(dir);
    const args = ['generate', '--extension', deepJson, '--target', 'echo', '--input', ir, '--output', 'out', '--json', '--transcript', 't.jsonl'];
    assert.is(await main(args, io), 3);
    const lines = (await readFile(join(dir, 't.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
    const closed = lines.find((line) => line.closed !== undefined);
    assert.ok(closed, JSON.stringify(lines.map((l) => Object.keys(l))));
    assert.equal([closed.direction, closed.closed.code, closed.closed.data.limit], ['extension->host', LocalErrorCode.Limit, 'maxJsonDepth']);
  }),
);

Transcript.run();
