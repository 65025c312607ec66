import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { heavyIr } from './guests/workloads/heavy-ir.ts';
import { nativeWorkloadScript } from './native-workload.ts';

const Native = suite('bench/native-workload :: the lint with rules turned off');

/** Runs a native script as the native runner would (readText, print), in this Node. */
async function run(script: string): Promise<string> {
  const printed: string[] = [];
  runInNewContext(readFileSync(script, 'utf8'), { readText: (p: string) => readFileSync(p, 'utf8'), print: (s: string) => printed.push(s), TextEncoder, Promise });
  await new Promise((r) => setTimeout(r, 0));
  return printed.join('\n');
}

/** heavyIr(3) with its first type defined again under another name, and that name plural. */
function irWithDuplicate(): Record<string, unknown> {
  const ir = heavyIr(3) as { distribution: [string, unknown, unknown, { modules: [unknown, { value: { types: [string[], unknown][] } }][] }] };
  const types = ir.distribution[3].modules[0]![1].value.types;
  types.push([['copied', 'records'], types[0]![1]]);
  return ir as unknown as Record<string, unknown>;
}

Native('should drop a rule turned off from the findings, and keep the others', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-native-workload-'));
  try {
    const irPath = join(dir, 'ir.json');
    writeFileSync(irPath, JSON.stringify(irWithDuplicate()));
    const digest = (out: string): number => Number(/^(\d+):/.exec(out)?.[1] ?? Number.NaN);
    const all = digest(await run(nativeWorkloadScript('lint', irPath)));
    assert.is(all, 2, 'the duplicate and its plural name');
    assert.is(digest(await run(nativeWorkloadScript('lint', irPath, { lintRulesOff: ['duplicate-definitions'] }))), 1);
    assert.is(digest(await run(nativeWorkloadScript('lint', irPath, { lintRulesOff: ['duplicate-definitions', 'singular-type-names'] }))), 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Native('should refuse a rule the lint does not have, or rules for another workload', () => {
  assert.throws(() => nativeWorkloadScript('lint', '/nowhere.json', { lintRulesOff: ['no-such-rule'] }), /no lint rule no-such-rule/);
  assert.throws(() => nativeWorkloadScript('graphql', '/nowhere.json', { lintRulesOff: ['duplicate-definitions'] }), /no lint rule duplicate-definitions to turn off in the graphql workload/);
});

Native.run();
