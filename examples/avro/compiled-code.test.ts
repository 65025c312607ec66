import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT, builtAvro } from '../testing/built.ts';

/** Every file under `dir` with its bytes, by relative path. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[relative(dir, join(entry.parentPath, entry.name))] = readFileSync(join(entry.parentPath, entry.name), 'base64');
  }
  return files;
}

const test = suite('avro :: mep generate with the guest\'s compiled code kept between processes (issue 32)');

test('should write the same files on a first miss (marked, lazy), a second (code written), a hit, a refused cache, MEP_WASM_CODE_CACHE=eager and with the cache off', async () => {
  const home = mkdtempSync(join(tmpdir(), 'mep-avro-code-'));
  const wasm = await builtAvro('wasm');
  const generate = async (out: string, env: Record<string, string> = {}): Promise<string> => {
    const args = [join(REPO_ROOT, 'bin/mep.mjs'), 'generate', '--extension', wasm, '--target', 'avro', '--input', 'fixtures/ir/shop/morphir-ir.json', '--output', join(home, out), '--verbose'];
    const { stderr } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, MEP_HOME: home, ...env } });
    return /wasm compiled-code cache: (.*)/.exec(stderr)?.[1] ?? 'none';
  };
  try {
    assert.is(await generate('off', { MEP_WASM_CODE_CACHE: '0' }), 'none');
    const dir = join(home, 'cache', 'wasm-code');
    const code = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.wcode'));
    assert.match(await generate('marked'), /^miss, marked/);
    assert.equal(code(), [], 'a first miss compiles lazily and writes no code');
    assert.match(await generate('miss'), /^miss \(marked before\), compiled and written/);
    assert.is(await generate('hit'), 'hit');
    const [name] = code();
    const bytes = readFileSync(join(dir, name as string));
    bytes[bytes.length >> 1] ^= 0x10;
    writeFileSync(join(dir, name as string), bytes);
    assert.match(await generate('flipped'), /^refused/);
    // MEP_WASM_CODE_CACHE=eager (an install step): no marker first, the first miss writes.
    rmSync(dir, { recursive: true });
    assert.match(await generate('eager', { MEP_WASM_CODE_CACHE: 'eager' }), /^miss \(eager\), compiled and written/);
    assert.equal(code().length, 1);
    const off = tree(join(home, 'off'));
    assert.ok(Object.keys(off).length > 0);
    for (const out of ['marked', 'miss', 'hit', 'flipped', 'eager']) assert.equal(tree(join(home, out)), off, out);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test.run();
