/**
 * One of quickjs-ng's C files (QUICKJS_SOURCES) compiled natively, cached under
 * `<cacheDir>/objects/` by what makes it: the compiler, its flags, the edited source tree
 * (`sourceKey` of the edits) and the file. Native builds that compile a file alike share it: the
 * test262 differential's edited engine (scripts/test262/native.ts) and the heap-fault runner
 * (./native.ts at -O0, build/engine/heap-faults.test.ts) compile the edited quickjs.c once between
 * them, which a clean checkout's `npm test` otherwise paid twice.
 */
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { QuickjsSource } from './patches/types.ts';

const run = promisify(execFile);

/** What {@link nativeObject} compiles. */
export interface NativeObjectJob {
  /** Cache folder (the engine's, `.cache/engine`). */
  cacheDir: string;
  cc: string;
  /** The compiler's flags, without `-I`, `-c` and `-o`. */
  flags: readonly string[];
  /** The edited sources' folder (ensureQuickjsSource) and its key (sourceKey of the same edits). */
  src: string;
  srcKey: string;
  file: QuickjsSource;
}

/** The path of `job.file`'s object, compiling it the first time; throws the compiler's error as it is. */
export async function nativeObject(job: NativeObjectJob): Promise<string> {
  const key = createHash('sha256').update([job.cc, ...job.flags, job.srcKey, job.file].join('\0')).digest('hex').slice(0, 16);
  const dir = join(job.cacheDir, 'objects');
  const out = join(dir, `${job.file.replace(/\.c$/, '')}-${key}.o`);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  try {
    await run(job.cc, [...job.flags, '-I', job.src, '-c', join(job.src, job.file), '-o', tmp], { maxBuffer: 16 << 20 });
    renameSync(tmp, out);
  } finally {
    rmSync(tmp, { force: true });
  }
  return out;
}
