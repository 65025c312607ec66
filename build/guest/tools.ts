/**
 * The two external binaries of the guest build: wizer (snapshot, from the npm package
 * @bytecodealliance/wizer) and wasm-opt (Debian's native binaryen when present, else npm's).
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

/** Path of the wizer binary shipped in the npm package for this platform. */
export function wizerPath(): string {
  const dir = packageDir(`@bytecodealliance/wizer-${process.platform}-${process.arch}`);
  const bin = dir && join(dir, process.platform === 'win32' ? 'wizer.exe' : 'wizer');
  if (!bin || !existsSync(bin)) {
    throw toolFailure('guest snapshot', `no wizer binary for ${process.platform}-${process.arch}; run npm ci (the lock pins @bytecodealliance/wizer 10.0.0)`);
  }
  return bin;
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

/** Runs the module's `wizer.initialize` and returns the snapshot (bulk memory enabled). */
export function snapshot(wasm: Uint8Array, tmpRoot: string): Promise<Uint8Array> {
  return throughFiles(tmpRoot, wasm, async (i, o) => {
    try {
      await run(wizerPath(), [i, '-o', o, '--wasm-bulk-memory', 'true'], { maxBuffer: 16 << 20 });
    } catch (e) {
      throw toolFailure('guest snapshot (wizer) failed', stderrOf(e), e);
    }
  });
}

/** `wasm-opt -Oz` with the engine's features; strips names and producers. */
export function optimize(wasm: Uint8Array, tmpRoot: string): Promise<Uint8Array> {
  return throughFiles(tmpRoot, wasm, async (i, o) => {
    const args = [i, '-o', o, '-Oz', '--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals', '--strip-debug', '--strip-producers'];
    try {
      await run(wasmOptPath(), args, { maxBuffer: 16 << 20 });
    } catch (e) {
      throw toolFailure('guest optimize (wasm-opt) failed', stderrOf(e), e);
    }
  });
}

/** Path of `extism-js` on PATH, or null. */
export async function findExtismJs(): Promise<string | null> {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const bin = join(dir, 'extism-js');
    if (dir && existsSync(bin)) return bin;
  }
  return null;
}
