/**
 * Locates the native wasm toolchain the engine build needs (Debian bookworm packages) and fails
 * with a message naming the missing package when something is absent.
 */
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { LocalErrorCode, MepError } from '../../host/src/protocol/errors.ts';

/** Paths of the tools and sysroot parts used to compile QuickJS and the glue to wasm32. */
export interface Toolchain {
  /** The clang-19 driver. */
  clang: string;
  /** llvm-ar from llvm-19, to archive libquickjs. */
  ar: string;
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
  return { clang, ar: '/usr/bin/llvm-ar-19', wasiInclude: '/usr/include/wasm32-wasi', version };
}
