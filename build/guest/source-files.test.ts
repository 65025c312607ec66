import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MepError } from '../../host/src/protocol/errors.ts';
import { bundleGuest } from './bundle.ts';
import { MAX_SOURCE_FILE_BYTES, readSourceText } from './source-files.ts';
import { typecheckGuest } from './typecheck.ts';

const SourceFiles = suite('build :: source files are regular files');

async function scratch(): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'mep-source-files-'));
}

SourceFiles('should refuse a module linked into /proc by its target (esbuild read the kernel file as source)', async () => {
  const dir = await scratch();
  try {
    // A .txt import is esbuild's text loader by default: the link's target would be the guest's string.
    await symlink('/proc/self/environ', join(dir, 'env.txt'));
    await writeFile(join(dir, 'main.ts'), `import env from './env.txt';\nexport function handle(): number { return env.length; }\n`);
    const error = await bundleGuest({ entry: join(dir, 'main.ts'), runtime: 'wasm', cwd: dir }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(error, MepError);
    assert.is((error as MepError).code, 'ERR_BUILD');
    assert.match(JSON.stringify((error as MepError).data ?? {}) + (error as Error).message, /environ[^]*system tree/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

SourceFiles('should refuse a device, a FIFO and an oversized file in the type check, and decode as TypeScript does', async () => {
  const dir = await scratch();
  try {
    const fifo = join(dir, 'pipe.ts');
    execFileSync('mkfifo', [fifo]);
    // Read with TypeScript's own reader, a FIFO with no writer blocks the check for good.
    for (const path of ['/dev/zero', fifo]) {
      assert.throws(() => readSourceText(path), (e: unknown) => e instanceof MepError && e.code === 'ERR_BUILD' && e.message.includes(path), path);
    }
    assert.is(readSourceText(join(dir, 'absent.ts')), undefined);
    await writeFile(join(dir, 'bom.ts'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('const a = 1;')]));
    assert.is(readSourceText(join(dir, 'bom.ts')), 'const a = 1;');
    await writeFile(join(dir, 'utf16.ts'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('const é = 1;', 'utf16le')]));
    assert.is(readSourceText(join(dir, 'utf16.ts')), 'const é = 1;');
    await writeFile(join(dir, 'big.ts'), Buffer.alloc(MAX_SOURCE_FILE_BYTES + 1, 0x20));
    assert.throws(() => readSourceText(join(dir, 'big.ts')), (e: unknown) => e instanceof MepError && e.code === 'ERR_LIMIT');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

SourceFiles('should end the type check of a FIFO given as the entry with a diagnostic (it blocked the check for good)', async () => {
  const dir = await scratch();
  try {
    const entry = join(dir, 'main.ts');
    execFileSync('mkfifo', [entry]);
    const problems = await typecheckGuest(entry, { cwd: dir });
    assert.ok(
      problems.some((p) => p.message.includes(entry) && /a FIFO, not a regular file/.test(p.message)),
      JSON.stringify(problems),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

SourceFiles.run();
