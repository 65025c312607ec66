/**
 * The incremental frontend on the 60-module model (issue 35), in V8 with morphir-elm's worker as
 * the bundle embeds it: `npm run test:elm-incremental-large` (a minute or two; not part of
 * `npm test`, whose incremental tests use a 4-module package, src/incremental.test.ts).
 *
 * The full compile equals `morphir-elm make`'s IR for the model (the committed reference,
 * fixtures/large-ir/, as parity.test.ts checks). Then, each with the baseline the previous
 * compile left: a leaf module edited, a module every other reaches edited (body only), then its
 * interface changed, then one module broken — each result equal to a full compile of the same
 * sources (and so to make's where make would succeed; MEP_MAKE=1 also runs make live on each
 * edited state, minutes each).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largeElmIrPath, writeLargeElmProject } from '../../fixtures/ir/large-elm-model.ts';
import type { CompileAnswer } from '../../guest-pdk/src/index.ts';
import { nextBaseline } from '../../host/src/project/compile-baseline.ts';
import { readMorphirProject } from '../../host/src/project/index.ts';
import { normalizeCompileParams, type CompileBaseline, type CompileResult } from '../../host/src/protocol/index.ts';
import { compileElm } from './src/compile.ts';
import { recordingContext, sharedWorker } from './src/testing.ts';
import { canonicalJson, morphirElmMake } from './testing/morphir-elm-make.ts';

const root = mkdtempSync(join(tmpdir(), 'mep-elm-incremental-'));
const dir = join(root, 'model');
writeLargeElmProject(dir);

async function compile(baseline?: CompileBaseline): Promise<CompileResult> {
  const params = normalizeCompileParams((await readMorphirProject(dir)).params);
  const answer = compileElm(baseline ? { ...params, baseline } : params, sharedWorker(), recordingContext()) as CompileAnswer;
  return { success: answer.success ?? true, modules: answer.modules ?? [], diagnostics: [], ...answer } as CompileResult;
}
const statuses = (result: CompileResult): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const r of result.moduleResults ?? []) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
};
const edit = (module: string, change: (text: string) => string): void => {
  const path = join(dir, 'src', 'Scale', `${module}.elm`);
  const before = readFileSync(path, 'utf8');
  const after = change(before);
  assert.is.not(after, before, `the edit of ${module} changes it`);
  writeFileSync(path, after);
};

let baseline: CompileBaseline | undefined;
let step = 0;
/** Compiles with the baseline, compares with a full compile (and make, with MEP_MAKE=1), keeps the next baseline. */
async function incremental(): Promise<CompileResult> {
  const result = await compile(baseline);
  const full = await compile();
  assert.is(result.success, full.success);
  assert.is(canonicalJson(result.ir), canonicalJson(full.success ? full.ir : result.ir), 'the incremental IR equals a full compile\'s');
  if (full.success) assert.is(canonicalJson(result.ir), canonicalJson(full.ir));
  if (process.env.MEP_MAKE === '1' && full.success) {
    const copy = join(root, `make-${step++}`);
    cpSync(dir, copy, { recursive: true });
    assert.is(canonicalJson(result.ir), canonicalJson(await morphirElmMake(copy)), 'equal to morphir-elm make\'s');
  }
  baseline = nextBaseline(baseline, result) ?? baseline;
  return result;
}

const Large = suite('elm-frontend: incremental compiles of the 60-module model');

Large.after(() => rmSync(root, { recursive: true, force: true }));

Large('should give make\'s IR on the full compile and keep a baseline of 60 modules', async () => {
  const result = await compile();
  assert.ok(result.success);
  assert.is(canonicalJson(result.ir), canonicalJson(JSON.parse(readFileSync(largeElmIrPath(), 'utf8'))));
  assert.equal(statuses(result), { compiled: 60 });
  baseline = nextBaseline(undefined, result);
  assert.is(baseline!.modules.length, 60);
});

Large('should compile only an edited leaf module', async () => {
  edit('M059', (t) => `${t}\n\nextraValue : Int\nextraValue =\n    59\n`);
  assert.equal(statuses(await incremental()), { compiled: 1, unchanged: 59 });
});

Large('should compile only a module every other reaches when its interface did not change', async () => {
  edit('M000', (t) => t.replace('item.id ++ " " ++ String.fromInt item.count', 'item.id ++ ": " ++ String.fromInt item.count'));
  assert.equal(statuses(await incremental()), { compiled: 1, unchanged: 59 });
});

Large('should compile the modules that reach a changed interface', async () => {
  edit('M030', (t) => t.replace('type Status3\n    = Draft3', 'type Status3\n    = Archived3\n    | Draft3'));
  const result = await incremental();
  assert.ok(result.success);
  const compiled = statuses(result).compiled;
  assert.ok(compiled > 1 && compiled < 60, `M030 and what reaches it: ${compiled}`);
});

Large('should fail one broken module and keep the IR of the others', async () => {
  edit('M045', (t) => t.replace('describe0 item limit =\n    if item.count > limit then', 'describe0 item limit =\n    if item.count > "limit" then'));
  const result = await compile(baseline);
  assert.not.ok(result.success);
  const failed = (result.moduleResults ?? []).filter((r) => r.status === 'failed').map((r) => r.name);
  assert.equal(failed, ['M045']);
  assert.ok(!(result.moduleResults ?? []).some((r) => r.status === 'blocked'), 'its importers compile against its baseline interface');
  assert.is(result.modules.length, 59);
  assert.not.ok(result.modules.includes('M045'));
});

Large.run();
