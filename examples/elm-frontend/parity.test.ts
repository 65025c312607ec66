/**
 * Parity with morphir-elm: for every committed Elm model in fixtures/ir/ and for the generated
 * 60-module model (fixtures/ir/large-elm-model.ts), the IR the frontend returns, in the wasm
 * sandbox and as a process, equals what `morphir-elm make` (2.82.0, the default command, run here
 * from node_modules) writes for the same project, compared as canonical JSON. The small models'
 * reference is made here by running `morphir-elm make`. The 60-module model's is the IR
 * `morphir-elm make` wrote for exactly its sources (fixtures/large-ir/, keyed by a hash of the
 * sources and the morphir-elm version, so it cannot drift from them; made live when the key has no
 * committed file): running make on it takes minutes, most of `npm test`'s budget. `npm run bench
 * -- elm-frontend` runs make live on the same model and checks the IR equal again.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { largeElmIrPath, writeLargeElmProject } from '../../fixtures/ir/large-elm-model.ts';
import { readMorphirProject } from '../../host/src/project/index.ts';
import { withLimits } from '../../host/src/registry/launch-limits.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import type { CompileResult } from '../../host/src/protocol/index.ts';
import { builtExample, REPO_ROOT } from '../testing/built.ts';
import { canonicalJson, morphirElmMake } from './testing/morphir-elm-make.ts';
import { seededRotation, seededSample } from '../../fixtures/testing/tier.ts';

const FIXTURES = join(REPO_ROOT, 'fixtures', 'ir');
const models = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, 'morphir.json')));
// The 60-module compile runs for minutes on a busy machine: no deadline that a slow machine could
// miss (the test asserts the IR, never the time). Its ≈ 70 MB of guest memory fit the default.
const LARGE_LIMITS = { callTimeoutMs: 3_600_000 };

let largeDir: string | undefined;
function largeProject(): string {
  if (!largeDir) {
    largeDir = mkdtempSync(join(tmpdir(), 'mep-elm-large-'));
    writeLargeElmProject(largeDir);
  }
  return largeDir;
}

// The 60-module reference (about 30 MB of IR), read and parsed once for both runtimes.
let largeReference: Record<string, unknown> | undefined;
function largeModelReference(): Record<string, unknown> {
  largeReference ??= JSON.parse(readFileSync(largeElmIrPath(), 'utf8')) as Record<string, unknown>;
  return largeReference;
}

async function compileIn(runtime: 'wasm' | 'process', projectDir: string, limits?: typeof LARGE_LIMITS): Promise<CompileResult> {
  const spec = withLimits(specFromPath(await builtExample('elm-frontend', runtime)), limits);
  const session = createSession({ transport: await openTransport(spec), ...(limits ? { requestTimeoutMs: limits.callTimeoutMs } : {}) });
  try {
    await session.start();
    return await session.compile((await readMorphirProject(projectDir)).params);
  } finally {
    await session.close();
  }
}

function assertSameIr(result: CompileResult, reference: Record<string, unknown>, what: string): void {
  assert.ok(result.success, `${what}: ${JSON.stringify(result.diagnostics).slice(0, 600)}`);
  assert.equal(result.diagnostics, [], `${what}: no diagnostics`);
  const ours = canonicalJson(result.ir);
  const theirs = canonicalJson(reference);
  if (ours !== theirs) {
    let at = 0;
    while (ours[at] === theirs[at]) at++;
    assert.unreachable(`${what}: the IR differs from morphir-elm make's at character ${at}: ours …${ours.slice(Math.max(0, at - 80), at + 80)}… theirs …${theirs.slice(Math.max(0, at - 80), at + 80)}…`);
  }
}

const Parity = suite('elm-frontend parity with morphir-elm make');

Parity.after(() => {
  if (largeDir) rmSync(largeDir, { recursive: true, force: true });
});

// `npm test` compiles every model as a process and three of them (MEP_TEST_SEED picks which) in
// the sandbox; `npm run test:long` compiles every model in both runtimes.
const sandboxed = new Set(seededSample(models, 3, 'elm-parity'));
for (const model of models) {
  for (const runtime of sandboxed.has(model) ? (['wasm', 'process'] as const) : (['process'] as const)) {
    Parity(`should give morphir-elm make's IR for ${model} :: ${runtime}`, async () => {
      const dir = join(FIXTURES, model);
      const [result, reference] = await Promise.all([compileIn(runtime, dir), morphirElmMake(dir)]);
      assertSameIr(result, reference, `${model} (${runtime})`);
    });
  }
}

// The 60-module model in wasm is the slowest Elm test (36 s idle, minutes on a busy machine): `npm
// test` compiles it in one runtime, chosen by MEP_TEST_SEED (even, the default: the process, a few
// seconds, with the same bundle and compiler as the wasm build; odd: wasm); `npm run test:long`
// in both.
for (const runtime of seededRotation(['process', 'wasm'] as const)) {
  Parity(`should give morphir-elm make's IR for the 60-module model (1,500 types) :: ${runtime}`, async () => {
    const dir = largeProject();
    const result = await compileIn(runtime, dir, LARGE_LIMITS);
    assertSameIr(result, largeModelReference(), `60-module model (${runtime})`);
  });
}

Parity.run();
