import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = join(root, 'fixtures/extensions/well-behaved.mjs');
const ir = join(root, 'fixtures/mep/ir/business-terms.json');

const Interrupt = suite('cli :: Ctrl+C');

Interrupt('should send $/cancelRequest first, then end the session, write nothing and leave no child', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-sigint-'));
  try {
    const transcript = join(dir, 'transcript.jsonl');
    const child = spawn(
      process.execPath,
      [join(root, 'bin/mep.mjs'), 'generate', '--extension', fixture, '--target', 'echo', '--input', ir, '--output', join(dir, 'out'), '--option', 'delayMs=30000', '--option', 'progress=true', '--transcript', transcript],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    // Interrupt once the request is running: the transcript shows the generate request.
    for (let i = 0; i < 200; i++) {
      const text = await readFile(transcript, 'utf8').catch(() => '');
      if (text.includes('morphir.backend.generate')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.is(code, 3, stderr);
    const methods = (await readFile(transcript, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((e) => e.direction === 'host->extension')
      .map((e) => e.message.method ?? 'response');
    const cancel = methods.indexOf('$/cancelRequest');
    assert.ok(cancel > methods.indexOf('morphir.backend.generate'), JSON.stringify(methods));
    // The session still ends in order after the cancellation: shutdown, then exit.
    assert.equal(methods.slice(cancel + 1), ['morphir.shutdown', 'morphir.exit']);
    assert.not.ok((await readdir(dir)).includes('out'));
    assert.not.match(stderr, /\r\x1b\[2K/); // no progress drawing when stderr is not a terminal
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Interrupt.run();
