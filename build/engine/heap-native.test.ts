/**
 * The engine's small-block chunks (patches/alloc.ts, mep_sweep_chunks) on its native build
 * (./native.ts): what the runtime's allocator holds at most (MEP_HELD, native/runner.c) when a
 * program's first stage dies and its next allocates other sizes. Native, because a wasm run of
 * the same counts takes several times longer.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_CACHE_DIR } from './index.ts';
import { ensureNativeEngine } from './native.ts';

const run = promisify(execFile);
const MB = 1e6;

/** Runs `script` in the native runner with MEP_HELD=1: its output and the most the allocator held. */
async function held(script: string): Promise<{ stdout: string; most: number }> {
  const runner = await ensureNativeEngine({ cacheDir: ENGINE_CACHE_DIR, opt: '-O1' });
  const dir = mkdtempSync(join(tmpdir(), 'mep-heap-native-'));
  try {
    const file = join(dir, 'script.js');
    writeFileSync(file, script);
    const { stdout, stderr } = await run(runner, [file], { env: { ...process.env, MEP_HELD: '1' }, timeout: 60_000 });
    const most = /held: (\d+) at most/.exec(stderr);
    if (!most) throw new Error(`the runner did not report what it held: ${stderr}`);
    return { stdout: stdout.trim(), most: Number(most[1]) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const chunks = suite('engine :: small-block chunks');

chunks('should give the chunks of a dead stage\'s objects to the next stage\'s other sizes', async () => {
  // 200,000 one-field objects (about 16 MB natively: their blocks and property arrays), dropped,
  // then 60,000 strings of 200 characters (about 13 MB, another size class). With chunks kept by
  // their class the allocator held both stages: 35.3 MB; with empty chunks given back, 22.4 MB.
  // Every 500th object stays alive, in chunks that must stay: freed with their chunk, they would
  // be overwritten by the strings and the sum would change.
  const { stdout, most } = await held(`let first = [], few = []; for (let i = 0; i < 200000; i++) { first.push({ i }); if (i % 500 === 0) few.push(first[i]); }
first = null;
const second = []; for (let i = 0; i < 60000; i++) second.push('x'.repeat(190) + i);
let sum = 0; for (const s of second) sum += s.length; for (const o of few) sum += o.i;
print(second.length + ':' + sum);`);
  assert.is(stdout, '60000:51588890');
  assert.ok(most < 28 * MB, `the allocator held ${(most / MB).toFixed(1)} MB at most`);
});

chunks.run();
