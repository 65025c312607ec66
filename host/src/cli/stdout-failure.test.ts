/**
 * Red team (issue 31): whoever reads `mep`'s output from a file. A stdout that fails (a full
 * disk: ENOSPC, EIO, a file past its size limit) was treated as a reader that left (EPIPE): the
 * writing stopped without a word and `mep` exited 0, so `mep describe --json > claims.json` on a
 * full disk left an empty file that a script took for a success. A reader that leaves (EPIPE,
 * `| head -c1`) is still no failure.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const mepBin = join(root, 'bin/mep.mjs');
const wellBehaved = join(root, 'fixtures/extensions/well-behaved.mjs');

/** Runs mep with `args`, stdout on the descriptor `stdout`; its exit code and stderr. */
function run(args: string[], stdout: number | 'pipe-closed'): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [mepBin, ...args], { stdio: ['ignore', stdout === 'pipe-closed' ? 'pipe' : stdout, 'pipe'] });
  if (stdout === 'pipe-closed') child.stdout?.destroy();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stderr })));
}

const Output = suite('cli :: a stdout that fails');

Output('should exit non-zero and say so when its stdout cannot be written (ENOSPC), not report success :: ENOSPC', async () => {
  if (!existsSync('/dev/full')) return; // Linux: every write fails with ENOSPC
  const full = openSync('/dev/full', 'w');
  try {
    const { code, stderr } = await run(['describe', wellBehaved, '--json'], full);
    assert.is(code, 3, stderr);
    assert.match(stderr, /mep describe: could not write to standard output \(ENOSPC\)/);
    assert.match(stderr, /incomplete/);
  } finally {
    closeSync(full);
  }
  // A reader that goes away is no failure: the command's own result stands.
  const gone = await run(['describe', wellBehaved, '--json'], 'pipe-closed');
  assert.is(gone.code, 0, gone.stderr);
  assert.not.match(gone.stderr, /could not write/);
});

Output.run();
