import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWatFixture } from '../../../fixtures/wasm/compile.ts';
import { LocalErrorCode } from '../protocol/errors.ts';
import { compiledWasmModule, openTransport, specFromPath } from './launch.ts';
import { tablesModule } from '../../../fixtures/wasm/hostile-modules.ts';
import { WASM_MODULE_BOUNDS } from '../protocol/limits.ts';
import { SHAPE_RULES } from '../transport/wasm/module-shape.ts';
import { createShapeVerdicts, keepShapeVerdicts } from './shape-verdicts.ts';
import { existsSync } from 'node:fs';

const Launch = suite('registry :: openTransport (wasm)');

Launch('should compile exactly the bytes the lock pins, and refuse other bytes at load', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-launch-'));
  try {
    const bytes = loadWatFixture('echo');
    const path = join(dir, 'echo.wasm');
    await writeFile(path, bytes);
    const pinned = createHash('sha256').update(bytes).digest('hex');
    const ok = await openTransport(specFromPath(path, { sha256: pinned }));
    await ok.close();
    const error = await openTransport(specFromPath(path, { sha256: '0'.repeat(64) })).catch((e) => e);
    assert.is(error.code, LocalErrorCode.Registry);
    assert.equal([error.data.reason, error.data.actual], ['hash-mismatch', pinned]);
    const missing = await openTransport(specFromPath(join(dir, 'absent.wasm'))).catch((e) => e);
    assert.is(missing.code, LocalErrorCode.Usage);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Launch('should keep a launched module\'s shape verdict in $MEP_HOME when the command keeps them, and read none from the project :: hostile', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mep-launch-'));
  const home = join(dir, 'home');
  const saved = process.env.MEP_HOME;
  process.env.MEP_HOME = home;
  keepShapeVerdicts(true);
  try {
    const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
    const echo = loadWatFixture('echo');
    await writeFile(join(dir, 'echo.wasm'), echo);
    // A memory limit of its own: the first test compiled these bytes in this process (cached by hash and cap).
    await compiledWasmModule(specFromPath(join(dir, 'echo.wasm'), { limits: { maxMemoryBytes: 96 * 1024 * 1024 } }));
    const kept = join(home, 'cache', 'wasm-shape', sha(echo));
    for (let i = 0; i < 200 && !existsSync(kept); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(existsSync(kept), 'the verdict of the module that passed');
    // Over a bound: a verdict planted in the project's .mep (where cloned code can write) is not read.
    const tables = tablesModule(WASM_MODULE_BOUNDS.tables + 1, 6);
    await writeFile(join(dir, 'tables.wasm'), tables);
    await createShapeVerdicts(join(dir, '.mep', 'cache', 'wasm-shape')).add(sha(tables), SHAPE_RULES);
    const refused = await compiledWasmModule(specFromPath(join(dir, 'tables.wasm'), { cwd: dir })).catch((e) => e);
    assert.is(refused.data?.limit, 'tables', String(refused));
    // The user's own verdict for exactly these bytes is trusted: the walk is skipped.
    await createShapeVerdicts(join(home, 'cache', 'wasm-shape')).add(sha(tables), SHAPE_RULES);
    assert.instance(await compiledWasmModule(specFromPath(join(dir, 'tables.wasm'))), WebAssembly.Module);
  } finally {
    keepShapeVerdicts(false);
    if (saved === undefined) delete process.env.MEP_HOME;
    else process.env.MEP_HOME = saved;
    await rm(dir, { recursive: true, force: true });
  }
});
Launch.run();
