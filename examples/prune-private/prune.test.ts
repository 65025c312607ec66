import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAvro } from '../avro/src/index.ts';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { REPO_ROOT, builtExample } from '../testing/built.ts';
import { prunePrivate } from './src/prune.ts';

const irPath = (name: string) => join(REPO_ROOT, 'fixtures/ir', name, 'morphir-ir.json');
const ir = (name: string) => JSON.parse(readFileSync(irPath(name), 'utf8'));

const Prune = suite('prune-private :: transform');

Prune('should remove exactly the private definitions nothing public reaches', () => {
  const { report } = prunePrivate(ir('showcase'));
  // Internal.normalize is private to the package but called from a public body: it stays.
  assert.equal(report, { removedTypes: ['internal#internal-note', 'orders#secret'], removedValues: ['orders#secret'], removedModules: [] });
});

Prune('should keep the public surface: the Avro projection is byte-identical', () => {
  for (const name of ['showcase', 'customer', 'customer-edges']) {
    const before = generateAvro(ir(name), { unsupported: 'warn-and-skip' });
    const after = generateAvro(prunePrivate(ir(name)).ir, { unsupported: 'warn-and-skip' });
    assert.equal(after, before, name);
  }
});

Prune('should strip docs on request and refuse what is not a v3 Library', () => {
  const stripped = JSON.stringify(prunePrivate(ir('showcase'), true).ir);
  assert.not.match(stripped, /"doc"/);
  assert.match(JSON.stringify(prunePrivate(ir('showcase')).ir), /"doc"/);
  assert.throws(() => prunePrivate({ distribution: ['Application'] }), /Library/);
});
Prune.run();

const Cli = suite('prune-private :: sandboxed, through mep transform');

Cli('should transform through the wasm build and write the pruned IR', async () => {
  const wasm = await builtExample('prune-private', 'wasm');
  const dir = await mkdtemp(join(tmpdir(), 'mep-prune-'));
  try {
    const out = join(dir, 'pruned.json');
    const io = captureIo(REPO_ROOT);
    assert.is(await main(['transform', '--extension', wasm, '--input', irPath('showcase'), '--output', out], io), 0, io.stderr.join('\n'));
    assert.equal(JSON.parse(await readFile(out, 'utf8')), prunePrivate(ir('showcase')).ir);
    const bad = captureIo(REPO_ROOT);
    assert.is(await main(['transform', '--extension', wasm, '--input', irPath('showcase'), '--output', join(dir, 'x.json'), '--option', 'colour=1'], bad), 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
Cli.run();
