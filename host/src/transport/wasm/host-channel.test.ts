import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { LocalErrorCode, isMepError } from '../../protocol/errors.ts';
import { builtExample } from '../../../../examples/testing/built.ts';
import { createTestClient, openFixture } from '../../../../fixtures/wasm/test-client.ts';
import { loadPortableWatFixture, loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import { attachHostChannel, defaultHostTrampoline, guestAbi, HOST_CHANNEL_SIGNATURES, hostTrampolineBytes, type HostChannelFunctions } from './host-channel.ts';
import { createWasmTransport } from './index.ts';
import { checkGuestModule } from './module.ts';

const noop = Object.fromEntries(HOST_CHANNEL_SIGNATURES.map(([fn]) => [fn, () => 0])) as HostChannelFunctions;

const Trampoline = suite('host channel :: trampoline');

Trampoline('should be a small module importing and re-exporting the eight functions in slot order', () => {
  const bytes = hostTrampolineBytes();
  assert.ok(bytes.length < 400, `${bytes.length} bytes`);
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  const names = HOST_CHANNEL_SIGNATURES.map(([fn]) => fn);
  assert.equal(WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`), names.map((n) => `mep.${n}`));
  assert.equal(WebAssembly.Module.exports(module).map((e) => e.name), names);
  assert.is(defaultHostTrampoline(), defaultHostTrampoline(), 'compiled once');
});

Trampoline('should refuse a host function set with one missing, before growing the guest table', () => {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(loadPortableWatFixture('echo') as Uint8Array<ArrayBuffer>), { 'extism:host/env': { input_length: () => 0n } });
  const table = instance.exports.__indirect_function_table as WebAssembly.Table;
  const before = table.length;
  const partial = { ...noop } as Partial<HostChannelFunctions>;
  delete partial.mep_notify;
  assert.throws(() => attachHostChannel(instance, partial as HostChannelFunctions, defaultHostTrampoline() as WebAssembly.Module));
  assert.is(table.length, before, 'the table was not grown');
});

Trampoline('should attach a host of version 1 (the eight functions, no mep_artifact) through the default trampoline of nine', () => {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(loadPortableWatFixture('echo') as Uint8Array<ArrayBuffer>), { 'extism:host/env': { input_length: () => 0n } });
  assert.ok(WebAssembly.Module.imports(defaultHostTrampoline() as WebAssembly.Module).some((i) => i.name === 'mep_artifact'));
  assert.is(attachHostChannel(instance, noop, defaultHostTrampoline() as WebAssembly.Module), 1);
});

Trampoline.run();

const Abi = suite('host channel :: guestAbi and checkGuestModule');

Abi('should tell the portable ABI from the legacy imports', () => {
  const portable = new WebAssembly.Module(loadPortableWatFixture('echo') as Uint8Array<ArrayBuffer>);
  const legacy = new WebAssembly.Module(loadWatFixture('echo') as Uint8Array<ArrayBuffer>);
  assert.is(guestAbi(portable), 'extism');
  assert.is(guestAbi(legacy), 'mep-imports');
  assert.is(checkGuestModule(portable, 'portable'), 'extism');
  assert.is(checkGuestModule(legacy, 'legacy'), 'mep-imports');
  // A plain Extism plugin with neither (kernel only) is accepted and runs on the kernel alone.
  const plain = new WebAssembly.Module(loadWatFixture('extism-echo') as Uint8Array<ArrayBuffer>);
  assert.is(guestAbi(plain), null);
  assert.is(checkGuestModule(plain, 'plain'), 'extism');
});

Abi.run();

for (const isolation of ['inline', 'worker'] as const) {
  const Attached = suite(`host channel :: attached by our host (${isolation})`);

  Attached('should carry input, output, notifications, requests, clock and randomness through the table', async () => {
    const transport = await openFixture('echo', isolation, { module: loadPortableWatFixture('echo'), grants: { clock: true, random: true } });
    try {
      const client = createTestClient(transport);
      const params = { text: 'héllo', n: [1, 2, 3] };
      assert.equal((await client.request(1, 'ping', params)).result, params);
      const progress = client.next((m) => m.method === '$/progress');
      assert.equal((await client.request(2, 'notify', { a: 1 })).result, { a: 1 });
      assert.is((await progress).method, '$/progress');
      transport.onMessage((m) => {
        if (m.method === 'secret.resolve') transport.send({ jsonrpc: '2.0', id: m.id, result: 's3cret' });
      });
      if (isolation === 'worker') assert.equal((await client.request(3, 'ask')).result, { jsonrpc: '2.0', id: 'g1', result: 's3cret' });
      assert.ok(((await client.request(4, 'clock')).result as number) > 1_600_000_000_000);
      assert.is((await client.request(5, 'random')).result, 16);
    } finally {
      await transport.close();
    }
  });

  Attached('should stop a spinning guest at its deadline through the attached interrupt poll', async () => {
    const transport = await openFixture('echo', isolation, { module: loadPortableWatFixture('echo'), limits: { callTimeoutMs: 100 } });
    try {
      const client = createTestClient(transport);
      const started = performance.now();
      const error = await client.request(1, 'spin').then(() => undefined, (e: unknown) => e);
      assert.ok(isMepError(error) && error.code === LocalErrorCode.Timeout, String(error));
      assert.ok(performance.now() - started < 5_000, 'stopped near its 100 ms deadline');
    } finally {
      await transport.close();
    }
  });

  Attached.run();
}

const Degraded = suite('host channel :: without a usable trampoline (workerd)');

Degraded('should log a warning and run a built guest on the kernel alone, without trapping', async () => {
  const logs: { level: string; message: string }[] = [];
  // An empty module stands in for a platform that could not provide the trampoline.
  const empty = new WebAssembly.Module(Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0));
  const module = new WebAssembly.Module(readFileSync(await builtExample('naming-validator', 'wasm')));
  const transport = await createWasmTransport({ name: 'naming', module, isolation: 'inline', hostTrampoline: empty, log: (l) => logs.push(l) });
  try {
    const client = createTestClient(transport);
    const init = await client.request(1, 'morphir.initialize', { protocolVersions: ['0.1'], host: { name: 't', version: '1' }, capabilities: {}, permissions: {} });
    assert.is((init.result as { protocolVersion: string }).protocolVersion, '0.1');
    assert.equal((await client.request(2, 'morphir.ping', {})).result, { ok: true });
  } finally {
    await transport.close();
  }
  const warning = logs.find((l) => l.level === 'warn');
  assert.ok(warning, JSON.stringify(logs));
  assert.match(warning.message, /without the MEP host channel/);
  assert.match(warning.message, /does not export mep_input_copy/);
});

const hostile: [string, (wat: string) => string, RegExp][] = [
  ['a table that cannot grow', (wat) => wat.replace('__indirect_function_table") 1 funcref', '__indirect_function_table") 1 1 funcref'), /table|grow|maximum/i],
  ['an attach that refuses', (wat) => wat.replace('(global.set $mep_slot (local.get $first))', '(return (i32.const 7))'), /returned 7/],
  ['an attach that traps', (wat) => wat.replace('(global.set $mep_slot (local.get $first))', 'unreachable'), /unreachable/],
];
for (const [what, edit, reason] of hostile) {
  Degraded(`should instantiate a guest with ${what}, log why it runs without the channel, and not crash the host`, async () => {
    const logs: { level: string; message: string }[] = [];
    const transport = await openFixture('echo', 'inline', { module: loadPortableWatFixture('echo', edit), log: (l) => logs.push(l) });
    await transport.close();
    const warning = logs.find((l) => l.level === 'warn');
    assert.ok(warning, JSON.stringify(logs));
    assert.match(warning.message, /without the MEP host channel/);
    assert.match(warning.message, reason);
  });
}

Degraded.run();
