import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isMepError, LocalErrorCode } from '../../protocol/errors.ts';
import { WASM_MODULE_BOUNDS } from '../../protocol/limits.ts';
import { tablesModule } from '../../../../fixtures/wasm/hostile-modules.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { rejection } from '../../../../fixtures/wasm/test-client.ts';
import { compileExtensionModule, type ShapeVerdicts } from './module.ts';
import { SHAPE_RULES } from './module-shape.ts';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A store holding `kept` verdicts (sha256 → rules) that records what it is asked and told. */
function memoryVerdicts(kept: Record<string, string> = {}): ShapeVerdicts & { asked: string[]; added: string[] } {
  const asked: string[] = [];
  const added: string[] = [];
  return {
    asked,
    added,
    async has(hash, rules) {
      asked.push(hash);
      return kept[hash] === rules;
    },
    async add(hash, rules) {
      added.push(`${hash} ${rules}`);
    },
  };
}


const verdict = suite('shape verdicts kept across processes');

verdict('should skip the walk only for the exact bytes a kept verdict names, under the same rules', async () => {
  // More tables than the bound: the walk refuses it; V8 itself would compile it.
  const bytes = tablesModule(WASM_MODULE_BOUNDS.tables + 1, 5);
  const trusted = memoryVerdicts({ [sha256(bytes)]: SHAPE_RULES });
  assert.instance(await compileExtensionModule(bytes, { name: 'kept', shapeVerdicts: trusted }), WebAssembly.Module);
  assert.equal(trusted.asked, [sha256(bytes)]);
  // One byte more (another table's initial size): another hash, walked, refused.
  const other = tablesModule(WASM_MODULE_BOUNDS.tables + 1, 2);
  const refused = await rejection(compileExtensionModule(other, { name: 'other', shapeVerdicts: trusted }));
  assert.ok(isMepError(refused) && refused.code === LocalErrorCode.Limit && (refused.data as { limit?: string }).limit === 'tables', String(refused));
  // A verdict made under other rules (bounds or walk since changed) does not count.
  const stale = memoryVerdicts({ [sha256(bytes)]: `${SHAPE_RULES}-old` });
  const again = await rejection(compileExtensionModule(tablesModule(WASM_MODULE_BOUNDS.tables + 1, 5), { name: 'stale', shapeVerdicts: stale, limits: { maxMemoryBytes: 256 * 1024 * 1024 - 65_536 * 7 } }));
  assert.ok(isMepError(again) && (again.data as { limit?: string }).limit === 'tables', String(again));
  assert.equal(stale.added, []);
});

verdict('should keep a verdict after a walk and compile that passed, and none after a refusal :: hostile', async () => {
  const bytes = loadWatFixture('echo');
  const store = memoryVerdicts();
  await compileExtensionModule(bytes, { name: 'echo', shapeVerdicts: store, limits: { maxMemoryBytes: 256 * 1024 * 1024 - 65_536 * 9 } });
  assert.equal(store.added, [`${sha256(bytes)} ${SHAPE_RULES}`]);
  const refusedStore = memoryVerdicts();
  await rejection(compileExtensionModule(tablesModule(WASM_MODULE_BOUNDS.tables + 1, 3), { name: 'tables', shapeVerdicts: refusedStore }));
  const truncated = bytes.subarray(0, 40);
  await rejection(compileExtensionModule(truncated, { name: 'cut', shapeVerdicts: refusedStore }));
  assert.equal(refusedStore.added, []);
});

verdict('should walk as before when the store fails, and still compile :: hostile', async () => {
  const failing: ShapeVerdicts = { has: () => Promise.reject(new Error('disk gone')), add: () => Promise.reject(new Error('disk gone')) };
  const bytes = tablesModule(WASM_MODULE_BOUNDS.tables + 1, 4);
  const error = await rejection(compileExtensionModule(bytes, { name: 'failing', shapeVerdicts: failing }));
  assert.ok(isMepError(error) && (error.data as { limit?: string }).limit === 'tables', String(error));
  assert.instance(await compileExtensionModule(loadWatFixture('echo'), { name: 'echo', shapeVerdicts: failing, limits: { maxMemoryBytes: 256 * 1024 * 1024 - 65_536 * 11 } }), WebAssembly.Module);
});

verdict('should take the sha256 the caller computed instead of hashing the bytes again', async () => {
  const bytes = loadWatFixture('echo');
  const limits = { maxMemoryBytes: 256 * 1024 * 1024 - 65_536 * 13 };
  const first = await compileExtensionModule(bytes, { name: 'echo', limits });
  // The cache is keyed by the hash given: the same module, although these bytes were not hashed.
  const given = await compileExtensionModule(new Uint8Array(bytes.length), { name: 'echo', limits, sha256: sha256(bytes) });
  assert.is(given, first);
});

verdict('should refuse a sha256 option that is not 64 lowercase hex digits :: ERR_USAGE', async () => {
  for (const bad of ['', 'abc', sha256(new Uint8Array(1)).toUpperCase(), `${'0'.repeat(63)}g`, `../${'0'.repeat(61)}`]) {
    const error = await rejection(compileExtensionModule(loadWatFixture('echo'), { name: 'echo', sha256: bad }));
    assert.ok(isMepError(error) && error.code === LocalErrorCode.Usage && /sha256/.test(error.message), `${bad}: ${String(error)}`);
  }
});

verdict('should name the rules of the walk by its sources: a changed walk needs a new revision', () => {
  // When module-shape.ts, module-shape-read.ts or import-types.ts changes what the walk accepts, bump
  // SHAPE_WALK_REVISION in module-shape.ts (verdicts kept under the old rules then count no more)
  // and record the sources' new hash here.
  const walk = createHash('sha256');
  for (const file of ['module-shape.ts', 'module-shape-read.ts', 'import-types.ts']) walk.update(readFileSync(new URL(file, import.meta.url), 'utf8').replaceAll('\r\n', '\n'));
  assert.is(walk.digest('hex').slice(0, 16), WALK_SOURCES, 'the walk changed: bump SHAPE_WALK_REVISION and record the new hash');
  assert.match(SHAPE_RULES, /^walk \d+, bounds [0-9a-f]{8}$/);
});

/** The first 16 hex digits of sha256(module-shape.ts ‖ module-shape-read.ts ‖ import-types.ts) of SHAPE_WALK_REVISION. */
const WALK_SOURCES = 'e4c2db669421faf5';

verdict.run();
