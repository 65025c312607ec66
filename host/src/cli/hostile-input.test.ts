/**
 * Red team of what `mep` reads from its standard input: a pipe from anyone (`curl … | mep call …
 * @-`), endless (`/dev/zero`) or huge, is read only up to the message bound.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mepBin = join(root, 'bin/mep.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');

/** Runs `mep` with `/dev/zero` as its stdin; the exit code and what it printed (stdout and stderr), or null when it was still reading after 20 s. */
function withEndlessStdin(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const zero = openSync('/dev/zero', 'r');
  const child = spawn(process.execPath, [mepBin, ...args], { cwd: root, stdio: [zero, 'pipe', 'pipe'] });
  closeSync(zero);
  let stderr = '';
  for (const stream of [child.stdout, child.stderr]) stream?.setEncoding('utf8').on('data', (text: string) => (stderr += text.slice(0, 4096)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) => child.on('exit', (code) => (clearTimeout(timer), resolve({ code, stderr }))));
}

const Input = suite('cli :: hostile standard input');

for (const [name, args] of [
  ['params @-', ['call', wellBehaved, 'ping', '@-', '--max-message', '1MiB', '--json']],
  ['--raw', ['call', wellBehaved, '--raw', 'describe', '--max-message', '1MiB', '--json']],
] as const) {
  Input(`should stop reading an endless stdin at --max-message with ERR_LIMIT, not fill memory :: ${name}`, async () => {
    const { code, stderr } = await withEndlessStdin([...args]);
    assert.is.not(code, null, `mep was still reading /dev/zero after 20 s: ${stderr}`);
    assert.match(stderr, /"code": "ERR_LIMIT"/);
    assert.match(stderr, /"limit": "maxMessageBytes"/);
    assert.match(stderr, /--max-message 2MiB/);
  });
}

Input.run();
