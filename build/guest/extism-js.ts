/**
 * `--compiler extism-js`: compiles the same entry with the upstream extism-js compiler when it is
 * on PATH (it is not on npm). The entry is bundled to CommonJS and its exports are declared in a
 * generated interface file, as extism-js expects. Guests built this way use Extism's own
 * input/output and do not get the MEP host functions.
 */
import * as esbuild from 'esbuild';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { toolFailure } from './diagnostics.ts';
import { findExtismJs } from './tools.ts';

const run = promisify(execFile);

/** Builds `entry` with extism-js; `exports` are the entry's function exports. */
export async function compileWithExtismJs(entry: string, exports: readonly string[], tmpRoot: string): Promise<Uint8Array> {
  const bin = await findExtismJs();
  if (!bin) {
    throw toolFailure(
      '--compiler extism-js',
      'extism-js is not on PATH; install it from https://github.com/extism/js-pdk/releases (it is not published on npm) or build with the default compiler',
    );
  }
  const dir = mkdtempSync(join(tmpRoot, 'extism-js-'));
  try {
    const js = join(dir, 'index.js');
    const dts = join(dir, 'index.d.ts');
    const out = join(dir, 'out.wasm');
    await esbuild.build({ entryPoints: [entry], bundle: true, format: 'cjs', platform: 'neutral', target: 'es2020', outfile: js, logLevel: 'silent' });
    writeFileSync(dts, `declare module 'main' {\n${exports.map((n) => `  export function ${n}(): I32;`).join('\n')}\n}\n`);
    try {
      await run(bin, [js, '-i', dts, '-o', out], { maxBuffer: 16 << 20 });
    } catch (e) {
      throw toolFailure('extism-js failed', ((e as { stderr?: string }).stderr ?? String(e)).trim(), e);
    }
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
