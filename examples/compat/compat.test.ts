import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { ENGINE_QUICKJS_2021 as ENGINE_2021 } from '../../build/engine/testing/engine-version.ts';
import { LocalErrorCode, isMepError } from '../../host/src/protocol/errors.ts';
import { builtExample } from '../testing/built.ts';
import { builtProbeGuest, probeResults } from '../testing/probe-guest.ts';
import { ALL_PACKAGES, runProbes } from './ajv-probe.js';
import { BUILTINS } from './probes.js';

type Results = Record<string, { ok?: unknown; threw?: string }>;

const AJV_REFUSED = /invalid escape sequence in regular expression/;

/** The wasm guest: all 15 packages, or with the 2021 engine the 13 it can load. */
const wasmGuest = (): Promise<string> => builtProbeGuest('compat', ENGINE_2021 ? 'without-ajv.ts' : undefined);
// uuid's v4 needs randomness: the sandbox gets the grant (a process has it anyway).
const resultsOf = (path: string): Promise<Results> => probeResults<Results>(path, { random: true });

let cached: Promise<{ wasm: Results; process: Results; node: Results }> | undefined;
const all = () =>
  (cached ??= (async () => {
    const [wasmPath, processPath] = await Promise.all([wasmGuest(), builtExample('compat', 'process')]);
    const previous = process.env.TZ;
    process.env.TZ = 'UTC'; // the sandbox's time zone, and the process binding's
    const node = JSON.parse(JSON.stringify(await runProbes())) as Results; // as the artifacts carry it
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
    return { wasm: await resultsOf(wasmPath), process: await resultsOf(processPath), node };
  })());

const compat = suite('compatibility :: 15 npm packages in one guest, wasm = process = Node');

compat(`should bundle all fifteen into one guest${ENGINE_2021 ? " (engine-blocked on QuickJS 2021: ajv's /[\\-]/u)" : ''}`, async () => {
  assert.is(Object.keys(ALL_PACKAGES).length, 15);
  if (ENGINE_2021) {
    // Not skipped: the 2021 engine must refuse exactly ajv's regular expression, with ERR_BUILD.
    try {
      await builtExample('compat', 'wasm');
      assert.unreachable('the 2021 engine compiled ajv');
    } catch (error) {
      assert.ok(isMepError(error) && error.code === LocalErrorCode.Build, String(error));
      assert.match(String((error as Error).message), AJV_REFUSED);
      assert.match(String((error as Error).message), /fast-uri/);
    }
    return;
  }
  // 8.4 MB on quickjs-ng 0.17 (2026-12-01): the fifteen packages' code and the heap their modules
  // build, all in the snapshot; 15.5 MB since the build bundles the Intl they use (issue 33: their
  // toLocaleString and localeCompare bring NumberFormat, DateTimeFormat and the Collator in en).
  // A bound well above it, so that a build that suddenly carries much more (a package's Node
  // build, a duplicated dependency, every time zone) is noticed.
  const size = readFileSync(await builtExample('compat', 'wasm')).length;
  assert.ok(size < 20 * 1024 * 1024, `${size} bytes`);
});

for (const name of [...Object.keys(ALL_PACKAGES), ...Object.keys(BUILTINS)]) {
  compat(`should give the same answer in wasm, process and Node :: ${name}`, async () => {
    const { wasm, process: proc, node } = await all();
    assert.ok(node[name]?.ok !== undefined, `Node itself: ${node[name]?.threw}`);
    assert.equal(proc[name], node[name], 'process');
    if (ENGINE_2021 && (name === 'ajv' || name === 'fast-xml-parser')) {
      // Engine-blocked (see the first test): the 2021 guest carries the other 13.
      assert.is(wasm[name], undefined);
      return;
    }
    assert.equal(wasm[name], node[name], 'wasm');
  });
}

compat('should give uuid v4 real randomness with the grant', async () => {
  const { wasm } = await all();
  assert.equal((wasm.uuid!.ok as unknown[])[1], { ok: [true, 4] });
});

compat.run();
