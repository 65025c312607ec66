import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { typecheckGuest } from './typecheck.ts';

const Typecheck = suite('build :: typecheckGuest :: clean record');

const clean = `import { helper } from './helper.ts';\nexport function handle(): number { return helper(2); }\n`;
const helper = `export function helper(n: number): number { return n * 2; }\n`;

async function project(): Promise<{ dir: string; cacheDir: string; entry: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'mep-typecheck-'));
  await writeFile(join(dir, 'main.ts'), clean);
  await writeFile(join(dir, 'helper.ts'), helper);
  return { dir, cacheDir: join(dir, 'cache'), entry: join(dir, 'main.ts') };
}

Typecheck('should record a clean check with every file it read, and trust it while they are unchanged', async () => {
  const { dir, cacheDir, entry } = await project();
  try {
    assert.equal(await typecheckGuest(entry, { cwd: dir, cacheDir }), []);
    const records = (await readdir(cacheDir)).filter((f) => f.endsWith('.clean.json'));
    assert.is(records.length, 1);
    const files = (JSON.parse(await readFile(join(cacheDir, records[0] as string), 'utf8')) as { files: [string, string][] }).files.map(([f]) => f);
    assert.ok(files.includes(entry) && files.includes(join(dir, 'helper.ts')), files.join('\n'));
    assert.not.ok(files.some((f) => /typescript[\\/]lib[\\/]lib\./.test(f)), 'TypeScript libraries are not recorded');
    assert.equal(await typecheckGuest(entry, { cwd: dir, cacheDir }), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Typecheck('should check again when an imported file changes, and report its new error', async () => {
  const { dir, cacheDir, entry } = await project();
  try {
    assert.equal(await typecheckGuest(entry, { cwd: dir, cacheDir }), []);
    await writeFile(join(dir, 'helper.ts'), `export function helper(n: number): number { return 'no'; }\n`);
    const problems = await typecheckGuest(entry, { cwd: dir, cacheDir });
    assert.is(problems.length, 1);
    assert.is(problems[0]?.file, 'helper.ts');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Typecheck('should check again when an imported file is removed', async () => {
  const { dir, cacheDir, entry } = await project();
  try {
    assert.equal(await typecheckGuest(entry, { cwd: dir, cacheDir }), []);
    await rm(join(dir, 'helper.ts'));
    const problems = await typecheckGuest(entry, { cwd: dir, cacheDir });
    assert.ok(problems.some((p) => p.file === 'main.ts' && p.message.startsWith('TS2307')), JSON.stringify(problems));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Typecheck('should not record a check that found errors, and ignore a damaged record', async () => {
  const { dir, cacheDir, entry } = await project();
  try {
    await writeFile(join(dir, 'helper.ts'), `export function helper(n: number): string { return n; }\n`);
    assert.is((await typecheckGuest(entry, { cwd: dir, cacheDir })).length > 0, true);
    assert.equal((await readdir(cacheDir)).filter((f) => f.endsWith('.clean.json')), []);
    await writeFile(join(dir, 'helper.ts'), helper);
    assert.equal(await typecheckGuest(entry, { cwd: dir, cacheDir }), []);
    const record = (await readdir(cacheDir)).find((f) => f.endsWith('.clean.json')) as string;
    await writeFile(join(cacheDir, record), '{"format":"mep-typecheck-clean-1","files":[["');
    await writeFile(join(dir, 'helper.ts'), `export function helper(n: number): number { return 'x'; }\n`);
    assert.is((await typecheckGuest(entry, { cwd: dir, cacheDir })).length, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Typecheck.run();
