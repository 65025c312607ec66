import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import createPlugin from '@extism/extism';
import { builtExample } from '../../examples/testing/built.ts';
import { scaffoldFiles } from '../../host/src/cli/commands/init.ts';
import { runConformance } from '../../host/src/conformance/index.ts';
import { ErrorCode } from '../../host/src/protocol/errors.ts';
import type { JsonRpcMessage } from '../../host/src/transport/types.ts';
import { buildGuest } from './index.ts';
import { createBareSdkTransport } from './testing/bare-sdk-transport.ts';
import { FIXTURE_DIR, writeFixture } from './testing/fixtures.ts';
import { RAW_JS_PDK_GUEST } from './testing/raw-guest.ts';

const compile = (path: string): WebAssembly.Module => new WebAssembly.Module(readFileSync(path));

/** The `mep init` template, built from a scaffold under the fixture folder. */
async function builtTemplate(): Promise<string> {
  const dir = join(FIXTURE_DIR, 'init-template');
  for (const [file, text] of Object.entries(scaffoldFiles('hello-ext'))) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return (await buildGuest({ entry: join(dir, 'src', 'extension.ts'), outFile: join(dir, 'dist', 'extension.wasm'), cwd: dir })).outFile;
}

async function builtRaw(): Promise<string> {
  const entry = writeFixture('raw-js-pdk.ts', RAW_JS_PDK_GUEST);
  return (await buildGuest({ entry, outFile: join(FIXTURE_DIR, 'out', 'raw-js-pdk.wasm') })).outFile;
}

const guests: [string, () => Promise<string>][] = [
  ['examples/avro', () => builtExample('avro', 'wasm')],
  ['examples/naming-validator', () => builtExample('naming-validator', 'wasm')],
  ['examples/prune-private', () => builtExample('prune-private', 'wasm')],
  ['the mep init template', builtTemplate],
  ['a raw js-pdk-style guest', builtRaw],
];

const Bare = suite('portable guests :: conformance in the bare Extism SDK, no host functions');

for (const [label, build] of guests) {
  Bare(`should pass the MEP conformance suite :: ${label}`, async () => {
    const module = compile(await build());
    assert.equal([...new Set(WebAssembly.Module.imports(module).map((i) => i.module))], ['extism:host/env']);
    const results = await runConformance({ open: () => createBareSdkTransport(module, label) });
    const failed = results.filter((r) => r.status === 'failed');
    assert.equal(failed, [], JSON.stringify(failed, null, 2));
    assert.ok(results.filter((r) => r.status === 'passed').length >= 10, `${label}: too few cases ran`);
  });
}

Bare('should answer morphir_extension_info, the export the Morphir reference host calls at load', async () => {
  const plugin = await createPlugin(compile(await builtExample('naming-validator', 'wasm')), { useWasi: false });
  try {
    const info = (await plugin.call('morphir_extension_info'))?.json() as { id: string; capabilities: unknown };
    assert.is(info.id, 'morphir-naming-validator');
    assert.ok(info.capabilities);
  } finally {
    await plugin.close();
  }
});

Bare('should let a bare Extism host call mep_release between calls, or never (the next call frees the message)', async () => {
  const module = compile(await builtExample('naming-validator', 'wasm'));
  assert.ok(WebAssembly.Module.exports(module).some((e) => e.name === 'mep_release' && e.kind === 'function'));
  const plugin = await createPlugin(module, { useWasi: false });
  try {
    const ask = async (id: number, method: string, params: unknown): Promise<{ id: number; result?: unknown; error?: unknown }> =>
      (await plugin.call('handle', JSON.stringify({ jsonrpc: '2.0', id, method, params })))?.json();
    const first = await ask(1, 'morphir.extension.describe', { protocolVersions: ['0.1'] });
    assert.is(first.id, 1);
    assert.ok(first.result);
    assert.is((await plugin.call('mep_release'))?.bytes().length ?? 0, 0);
    assert.is((await plugin.call('mep_release'))?.bytes().length ?? 0, 0, 'a second release has nothing left to free');
    const second = await ask(2, 'morphir.extension.describe', { protocolVersions: ['0.1'] });
    assert.equal(second, { ...first, id: 2 });
  } finally {
    await plugin.close();
  }
});

Bare.run();

/** A PDK backend that logs, reports progress and asks the host for a secret in one request. */
const NEEDY_BACKEND = `import { defineExtension, textArtifact } from 'mep-runtime/guest-pdk';

export default defineExtension({
  info: { id: 'needy', name: 'Needy backend', version: '1.0.0' },
  backend: {
    targets: ['needy'],
    irVersions: ['3'],
    async generate(_params, ctx) {
      ctx.log('warn', 'about to ask for a secret');
      ctx.progress('begin', 'starting');
      const token = await ctx.secret('env("TOKEN")');
      return { artifacts: [textArtifact('token.txt', token)] };
    },
  },
});
`;

const Degraded = suite('portable guests :: degraded in the bare Extism SDK');

Degraded('should log through Extism, drop progress and answer secret.resolve with -32013, without a trap', async () => {
  const entry = writeFixture('needy-backend.ts', NEEDY_BACKEND);
  const { outFile } = await buildGuest({ entry, outFile: join(FIXTURE_DIR, 'out', 'needy-backend.wasm') });
  const transport = await createBareSdkTransport(compile(outFile), 'needy');
  const received: JsonRpcMessage[] = [];
  transport.onMessage((m) => received.push(m));
  let closedWith: unknown = 'open';
  transport.onClose((e) => (closedWith = e));
  try {
    transport.send({ jsonrpc: '2.0', id: 1, method: 'morphir.initialize', params: { protocolVersions: ['0.1'], host: { name: 'bare', version: '1' }, capabilities: { progress: true }, permissions: {} } });
    transport.send({ jsonrpc: '2.0', method: 'morphir.initialized', params: {} });
    transport.send({ jsonrpc: '2.0', id: 2, method: 'morphir.backend.generate', params: { ir: { formatVersion: 3, distribution: ['Library', [], [], { modules: [] }] }, target: 'needy', options: {} } });
    transport.send({ jsonrpc: '2.0', id: 3, method: 'morphir.ping', params: {} });
    await transport.close();
  } finally {
    await transport.close();
  }
  assert.is(closedWith, undefined, 'the transport closed without an error: the guest never trapped');
  assert.equal(received.map((m) => m.id), [1, 2, 3], 'every request was answered and nothing else was sent (no progress)');
  const error = received[1]?.error as { code: number; message: string; data?: { method?: string } };
  assert.is(error.code, ErrorCode.CapabilityUnavailable);
  assert.is(error.data?.method, 'secret.resolve');
  assert.match(error.message, /MEP host channel/);
  assert.ok(transport.logs.some((l) => l.level === 'warn' && l.message === 'about to ask for a secret'), JSON.stringify(transport.logs));
  assert.equal((received[2]?.result as { ok: boolean }).ok, true, 'the instance still answers after the refused request');
});

Degraded.run();
