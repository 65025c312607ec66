/**
 * Locates the native wasm toolchain the engine build needs (Debian bookworm packages) and fails
 * with a message naming the missing package when something is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** Paths of the tools and sysroot parts used to compile QuickJS and the glue to wasm32. */
export interface Toolchain {
  /** The clang-19 driver. */
  clang: string;
  /** llvm-ar from llvm-19, to archive libquickjs. */
  ar: string;
  /** wasm-ld from lld-19, given to clang by path (`-fuse-ld`): the link finds nothing on PATH. */
  ld: string;
  /**
   * The PATH of the link: clang-19's own folder, where no wasm-opt is. When clang finds wasm-opt on
   * PATH it runs `wasm-opt -O<link level>` on its output unasked (and clang-19's `--no-wasm-opt`
   * skips the link altogether); the engine build runs binaryen itself (compile.ts).
   */
  linkPath: string;
  /** wasi-libc headers. */
  wasiInclude: string;
  /** `clang-19 --version`, first line (part of the cache key). */
  version: string;
}

interface Requirement {
  path: string;
  pkg: string;
  what: string;
}

const requirements = (): Requirement[] => [
  { path: '/usr/bin/clang-19', pkg: 'clang-19', what: 'the C compiler' },
  { path: '/usr/bin/wasm-ld-19', pkg: 'lld-19', what: 'the wasm linker' },
  { path: '/usr/bin/llvm-ar-19', pkg: 'llvm-19', what: 'the archiver' },
  { path: '/usr/include/wasm32-wasi/stdio.h', pkg: 'wasi-libc', what: 'the wasm32 C library headers' },
  { path: '/usr/lib/wasm32-wasi/libc.a', pkg: 'wasi-libc', what: 'the wasm32 C library' },
  {
    path: '/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a',
    pkg: 'libclang-rt-19-dev-wasm32',
    what: 'the wasm32 compiler runtime',
  },
];

/**
 * Finds the toolchain or throws a `MepError` (code `ERR_BUILD`) naming every missing Debian package.
 *
 * @example
 * const tc = findToolchain(); // throws with "apt-get install …" advice when incomplete
 */
export function findToolchain(): Toolchain {
  const missing = requirements().filter((r) => !existsSync(r.path));
  if (missing.length > 0) {
    const pkgs = [...new Set(missing.map((m) => m.pkg))];
    const detail = missing.map((m) => `${m.what} (${m.path}, Debian package ${m.pkg})`).join('; ');
    throw new MepError(
      LocalErrorCode.Build,
      `cannot build the guest engine: missing ${detail}. Install with: apt-get update && apt-get install -y ${pkgs.join(' ')} (or run npm run setup)`,
      { data: { missingPackages: pkgs } },
    );
  }
  const clang = '/usr/bin/clang-19';
  const version = execFileSync(clang, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? 'clang-19';
  return { clang, ar: '/usr/bin/llvm-ar-19', ld: '/usr/bin/wasm-ld-19', linkPath: '/usr/lib/llvm-19/bin', wasiInclude: '/usr/include/wasm32-wasi', version };
}

/** wasm-opt's feature flags for the engine's code (what COMMON_FLAGS in compile.ts let clang emit). */
export const WASM_OPT_FEATURES = ['--enable-bulk-memory', '--enable-sign-ext', '--enable-mutable-globals'];

/** The npm package binaryen's wasm-opt: a Node script, run with this process's node. */
export interface Binaryen {
  /** Path of its `bin/wasm-opt`. */
  wasmOpt: string;
  /** The package's version (part of the engine's cache key). */
  version: string;
}

/**
 * The binaryen of package.json's dependencies, pinned by the lock (the same wasm-opt on every
 * machine, where Debian's binaryen differs between releases), or null when it is not installed.
 */
export function npmBinaryen(): Binaryen | null {
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve('binaryen/package.json'));
  } catch {
    return null;
  }
  const wasmOpt = join(dir, 'bin', 'wasm-opt');
  if (!existsSync(wasmOpt)) return null;
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  return { wasmOpt, version };
}

