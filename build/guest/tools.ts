/**
 * The external binary of the guest build: wasm-opt (Debian's native binaryen when present, else
 * npm's): `-Oz` once per engine (optimized-engine.ts), a quick dead-code pass per guest. The
 * default snapshot needs no tool (snapshot.ts); the optional wizer one runs npm's wizer
 * (wizer-snapshot.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { toolFailure } from './diagnostics.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

function packageDir(name: string): string | null {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

/** Path of wasm-opt: /usr/bin/wasm-opt (Debian binaryen, ~4x faster) or the npm binaryen one. */
export function wasmOptPath(): string {
  if (existsSync('/usr/bin/wasm-opt')) return '/usr/bin/wasm-opt';
  const dir = packageDir('binaryen');
  const bin = dir && join(dir, 'bin', 'wasm-opt');
  if (!bin || !existsSync(bin)) throw toolFailure('guest optimize', 'wasm-opt not found: install the Debian package binaryen or run npm ci');
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

const FEATURES = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals'];

function wasmOpt(wasm: Uint8Array, tmpRoot: string, passes: readonly string[], signal?: AbortSignal): Promise<Uint8Array> {
  return throughFiles(tmpRoot, wasm, async (i, o) => {
    try {
      await run(wasmOptPath(), [i, '-o', o, ...FEATURES, ...passes], { maxBuffer: 16 << 20, ...(signal ? { signal } : {}) });
    } catch (e) {
      throw toolFailure('guest optimize (wasm-opt) failed', stderrOf(e), e);
    }
  });
}

/** `wasm-opt -Oz` with the engine's features; strips names and producers. */
export function optimize(wasm: Uint8Array, tmpRoot: string): Promise<Uint8Array> {
  return wasmOpt(wasm, tmpRoot, ['-Oz', '--strip-debug', '--strip-producers']);
}

/**
 * Removes functions, globals and types no export reaches (about 0.2 s with Debian's binaryen):
 * in a linked guest, the bytecode reader and compiler that only the snapshot used. `signal`
 * ends wasm-opt (a watch's pass that a newer build made useless).
 */
export function removeUnused(wasm: Uint8Array, tmpRoot: string, signal?: AbortSignal): Promise<Uint8Array> {
  return wasmOpt(wasm, tmpRoot, ['--remove-unused-module-elements', '--strip-debug', '--strip-producers'], signal);
}

/** Path of `extism-js` on PATH, or null. */
export async function findExtismJs(): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const bin = join(dir, 'extism-js');
    if (dir && existsSync(bin)) return bin;
  }
  return null;
}
