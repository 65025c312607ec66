/**
 * The external binary of the guest build: wasm-opt (Debian's native binaryen when present, else
 * npm's): a quick dead-code pass per guest (the engine is optimized by its own build). The
 * default snapshot needs no tool (snapshot.ts); the optional wizer one runs npm's wizer
 * (wizer-snapshot.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { npmBinaryen, WASM_OPT_FEATURES } from '../engine/toolchain.ts';
import { toolFailure } from './diagnostics.ts';

const run = promisify(execFile);

/** Path of wasm-opt: /usr/bin/wasm-opt (Debian binaryen, ~4x faster) or the npm binaryen one. */
export function wasmOptPath(): string {
  if (existsSync('/usr/bin/wasm-opt')) return '/usr/bin/wasm-opt';
  const bin = npmBinaryen()?.wasmOpt;
  if (!bin) throw toolFailure('guest optimize', 'wasm-opt not found: install the Debian package binaryen or run npm ci');
  return bin;
}

async function throughFiles(tmpRoot: string, input: Uint8Array, step: (inFile: string, outFile: string) => Promise<unknown>): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpRoot, 'step-'));
  try {
    const inFile = join(dir, 'in.wasm');
    const outFile = join(dir, 'out.wasm');
    writeFileSync(inFile, input);
    await step(inFile, outFile);
    return readFileSync(outFile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const stderrOf = (e: unknown): string => ((e as { stderr?: string }).stderr ?? String(e)).trim().split('\n').slice(0, 5).join('\n');

function wasmOpt(wasm: Uint8Array, tmpRoot: string, passes: readonly string[], signal?: AbortSignal): Promise<Uint8Array> {
  return throughFiles(tmpRoot, wasm, async (i, o) => {
    try {
      await run(wasmOptPath(), [i, '-o', o, ...WASM_OPT_FEATURES, ...passes], { maxBuffer: 16 << 20, ...(signal ? { signal } : {}) });
    } catch (e) {
      throw toolFailure('guest optimize (wasm-opt) failed', stderrOf(e), e);
    }
  });
}

/**
 * Removes functions, globals and types no export reaches (about 0.2 s with Debian's binaryen):
 * in a linked guest, the bytecode reader and compiler that only the snapshot used. `signal`
 * ends wasm-opt (a watch's pass that a newer build made useless).
 *
 * Binaryen reads the engine's -O3 stack code back with a scratch local for each value it cannot
 * nest, and would write them all out: JS_CallInternal came out with 167 locals instead of 59.
 * V8's baseline compiler (Liftoff, lazy: a fresh process compiles it in its first call) keeps the
 * state of every local at every branch target, 4.8 MB of compiler memory for that function
 * instead of 2.9 MB. `--coalesce-locals` (about 0.08 s more CPU) gives the slots back.
 */
export function removeUnused(wasm: Uint8Array, tmpRoot: string, signal?: AbortSignal): Promise<Uint8Array> {
  return wasmOpt(wasm, tmpRoot, ['--remove-unused-module-elements', '--strip-debug', '--strip-producers', '--coalesce-locals'], signal);
}

/** Path of `extism-js` on PATH, or null. */
export async function findExtismJs(): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const bin = join(dir, 'extism-js');
    if (dir && existsSync(bin)) return bin;
  }
  return null;
}
