import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureIo } from '../../host/src/cli/io.ts';
import { main } from '../../host/src/cli/main.ts';
import { runConformance } from '../../host/src/conformance/index.ts';
import { openTransport, specFromPath } from '../../host/src/registry/launch.ts';
import { createSession } from '../../host/src/session/session.ts';
import { createInProcessTransport } from '../../host/src/testing/in-process-transport.ts';
import extension from './extension.ts';
import { REPO_ROOT, builtAvro } from '../testing/built.ts';
import { seededSample } from '../../fixtures/testing/tier.ts';

const irFixtures = ['customer', 'customer-edges', 'customer-partial', 'customer-logical', 'customer-custom-types', 'showcase', 'orders'];
const optionSets: Record<string, unknown>[] = [
  {},
  { projection: 'protocol-public' },
  { representation: 'idl' },
  { aliases: 'wrapper-record', unsupported: 'warn-and-skip' },
  { dependencies: 'linked', unsupported: 'warn-and-skip' },
  { dependencies: 'shared', unsupported: 'warn-and-skip' },
  { logical_types: false, unsupported: 'warn-and-skip' },
  { not_an_option: true },
];

const Parity = suite('avro :: one source, two runtimes');

Parity('should pass the conformance suite as wasm and as a process with identical outcomes', async () => {
  const outcomes: string[][] = [];
  for (const runtime of ['wasm', 'process'] as const) {
    const spec = specFromPath(await builtAvro(runtime));
    const results = await runConformance({ open: () => openTransport(spec) });
    assert.equal(results.filter((r) => r.status === 'failed'), [], runtime);
    outcomes.push(results.map((r) => `${r.name}: ${r.status}`));
  }
  assert.equal(outcomes[0], outcomes[1]);
});

Parity('should generate byte-identical results in wasm, in a process and in V8 for every IR fixture and option set', async () => {
  const transports = [
    await openTransport(specFromPath(await builtAvro('wasm'))),
    await openTransport(specFromPath(await builtAvro('process'))),
    createInProcessTransport(extension),
  ];
  const sessions = transports.map((transport) => createSession({ transport }));
  try {
    for (const s of sessions) await s.start();
    let compared = 0;
    let produced = 0;
    // `npm test` compares 24 of the 56 pairs (MEP_TEST_SEED picks them); `npm run test:long` all.
    const pairs = seededSample(irFixtures.flatMap((name) => optionSets.map((options) => [name, options] as const)), 24, 'avro-parity');
    const irs = new Map<string, Record<string, unknown>>();
    for (const [name, options] of pairs) {
      if (!irs.has(name)) irs.set(name, JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/ir', name, 'morphir-ir.json'), 'utf8')));
      const ir = irs.get(name)!;
      {
        const [wasm, proc, v8] = await Promise.all(sessions.map((s) => s.generate({ ir, target: 'avro', options })));
        assert.equal(wasm, v8, `${name} ${JSON.stringify(options)}: wasm differs from V8`);
        assert.equal(proc, v8, `${name} ${JSON.stringify(options)}: process differs from V8`);
        compared++;
        if (v8.success && v8.artifacts.length > 0) produced++;
      }
    }
    assert.is(compared, pairs.length);
    // Most combinations produce artifacts; the invalid option and strict failures do not.
    assert.ok(produced >= pairs.length / 3, `only ${produced} of ${pairs.length} runs produced artifacts`);
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
});
Parity('should write the same files with `mep generate` in both runtimes, whether the IR file is compact or pretty-printed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mep-avro-cli-'));
  try {
    const ir = JSON.parse(readFileSync(join(REPO_ROOT, 'fixtures/ir/showcase/morphir-ir.json'), 'utf8'));
    writeFileSync(join(dir, 'compact.json'), JSON.stringify(ir));
    writeFileSync(join(dir, 'pretty.json'), `${JSON.stringify(ir, null, 2)}\n`);
    const outputs: string[] = [];
    for (const runtime of ['wasm', 'process'] as const) {
      for (const input of ['compact', 'pretty']) {
        const out = join(dir, `${runtime}-${input}`);
        const io = captureIo(dir);
        const args = ['generate', '--extension', await builtAvro(runtime), '--target', 'avro', '--input', join(dir, `${input}.json`), '--output', out, '--option', 'unsupported=warn-and-skip'];
        assert.is(await main(args, io), 0, io.stderr.join('\n'));
        const files = (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('.avsc')).sort();
        assert.ok(files.length > 0);
        outputs.push(JSON.stringify(files.map((f) => [f, readFileSync(join(out, f), 'utf8')])));
      }
    }
    assert.ok(outputs.every((o) => o === outputs[0]), 'every runtime and input form wrote the same files');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Parity.run();
