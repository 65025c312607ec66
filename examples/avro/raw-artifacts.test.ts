/**
 * The Avro guest's streamed artifacts through the raw channel (`mep_artifact`, attach version 2)
 * are the artifacts of the MEP 0.1 JSON notifications (a host that attaches version 1, as a
 * precompiled trampoline of eight functions does on workerd), on every fixture IR, in both
 * isolations; and the PDK takes the raw channel only where the host offers it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hostTrampolineBytes } from '../../host/src/transport/wasm/host-channel.ts';
import { createExtismEngine, createWasmTransport } from '../../host/src/transport/wasm/index.ts';
import { resolveWasmLimits } from '../../host/src/transport/wasm/limits.ts';
import { createNodeWasmWorkerSpawner } from '../../host/src/transport/wasm/node/worker.ts';
import { createSession } from '../../host/src/session/session.ts';
import { REPO_ROOT, builtAvro } from '../testing/built.ts';

const spawnWorker = createNodeWasmWorkerSpawner();
/** A trampoline of the eight version-1 functions: the guest attaches version 1 and sends JSON. */
const jsonOnly = new WebAssembly.Module(hostTrampolineBytes() as Uint8Array<ArrayBuffer>);
const irOf = async (name: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(REPO_ROOT, 'fixtures/ir', name, 'morphir-ir.json'), 'utf8'));
const fixtures = async (): Promise<string[]> => {
  const names: string[] = [];
  for (const entry of await readdir(join(REPO_ROOT, 'fixtures/ir'), { withFileTypes: true })) {
    if (entry.isDirectory() && (await readFile(join(REPO_ROOT, 'fixtures/ir', entry.name, 'morphir-ir.json')).then(() => true, () => false))) names.push(entry.name);
  }
  return names;
};

const Raw = suite('avro :: raw artifacts over the wasm host channel');

Raw('should send streamed artifacts through mep_artifact where the host attached version 2, and as notifications where it attached version 1', async () => {
  const module = new WebAssembly.Module((await readFile(await builtAvro('wasm'))) as Uint8Array<ArrayBuffer>);
  const ir = await irOf('customer');
  for (const [trampoline, expected] of [[undefined, 'raw'], [jsonOnly, 'json']] as const) {
    const seen = { raw: 0, json: 0 };
    const decoder = new TextDecoder();
    const engine = await createExtismEngine(module, {
      name: 'avro.wasm',
      limits: resolveWasmLimits('avro.wasm'),
      grants: {},
      interruptFlag: new Int32Array(1),
      ...(trampoline === undefined ? {} : { hostTrampoline: trampoline }),
      bridge: {
        notify: (bytes) => void (JSON.parse(decoder.decode(bytes)).method === 'morphir.backend.artifact' && seen.json++),
        artifact: () => void seen.raw++,
        request: () => null,
        log: () => undefined,
      },
    });
    try {
      const call = async (message: object): Promise<unknown> => {
        const outcome = await engine.call(new TextEncoder().encode(JSON.stringify(message)), 30_000);
        assert.ok(outcome.ok, JSON.stringify(outcome));
        return outcome.ok && outcome.output !== null ? JSON.parse(decoder.decode(outcome.output)) : undefined;
      };
      await call({ jsonrpc: '2.0', id: 1, method: 'morphir.initialize', params: { protocolVersions: ['0.1'], host: { name: 'test', version: '0.0.0' }, capabilities: { cancellation: true, progress: true, artifactStream: true } } });
      await call({ jsonrpc: '2.0', method: 'morphir.initialized', params: {} });
      const result = (await call({ jsonrpc: '2.0', id: 2, method: 'morphir.backend.generate', params: { ir, target: 'avro', options: {} } })) as { result: { streamedArtifacts: number } };
      assert.ok(result.result.streamedArtifacts > 0, JSON.stringify(result));
      assert.equal(seen, { raw: expected === 'raw' ? result.result.streamedArtifacts : 0, json: expected === 'json' ? result.result.streamedArtifacts : 0 }, `${expected}: ${JSON.stringify(seen)}`);
    } finally {
      await engine.close();
    }
  }
});

Raw('should generate the same artifacts through the raw channel (inline, worker) as through JSON notifications, on every fixture IR', async () => {
  const module = await readFile(await builtAvro('wasm'));
  const hosts = {
    'raw, inline': { isolation: 'inline' },
    'raw, worker': { isolation: 'worker', spawnWorker },
    'json, inline': { isolation: 'inline', hostTrampoline: jsonOnly },
  } as const;
  const names = await fixtures();
  assert.ok(names.length >= 8, names.join(', '));
  const sessions = Object.fromEntries(
    await Promise.all(
      Object.entries(hosts).map(async ([label, options]) => {
        const session = createSession({ transport: await createWasmTransport({ name: 'avro.wasm', module: new Uint8Array(module), ...options }) });
        await session.start();
        return [label, session] as const;
      }),
    ),
  );
  try {
    for (const name of names) {
      const ir = await irOf(name);
      for (const options of [{}, { dependencies: 'shared' }]) {
        const results: Record<string, unknown> = {};
        for (const [label, session] of Object.entries(sessions)) results[label] = await session.generate({ ir, target: 'avro', options }, { id: `${name}-${label}` });
        const json = results['json, inline'] as { success: boolean; artifacts: unknown[] };
        assert.ok(json.artifacts.length > 0 || !json.success, name);
        assert.equal(results['raw, inline'], json, `${name} ${JSON.stringify(options)}: inline`);
        assert.equal(results['raw, worker'], json, `${name} ${JSON.stringify(options)}: worker`);
      }
    }
  } finally {
    await Promise.all(Object.values(sessions).map((s) => s.close()));
  }
});

Raw.run();
