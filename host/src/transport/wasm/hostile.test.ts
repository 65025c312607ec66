import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, LocalErrorCode, isMepError, type MepErrorCode } from '../../protocol/errors.ts';
import { createTestClient, openFixture, rejection } from '../../../../fixtures/wasm/test-client.ts';
import { loadWatFixture } from '../../../../fixtures/wasm/compile.ts';
import type { WasmTransportOptions } from './index.ts';

const codeOf = (error: unknown): unknown => (isMepError(error) ? error.code : error);

/** `fixture` compiled by the caller: the host takes a WebAssembly.Module as is (its bytes unseen, unchecked). */
const compiled = (fixture: string): { module: WebAssembly.Module } => ({ module: new WebAssembly.Module(loadWatFixture(fixture) as Uint8Array<ArrayBuffer>) });

/** The host is alive: a new session of the well-behaved guest answers. */
async function assertHostAlive(isolation: WasmTransportOptions['isolation']): Promise<void> {
  const transport = await openFixture('echo', isolation);
  try {
    assert.is((await createTestClient(transport).request('alive', 'ping', 'yes')).result, 'yes');
  } finally {
    await transport.close();
  }
}

/**
 * Sends one request to `fixture` and checks that it fails with `code`, that the transport
 * closes with the same typed error, and that the same module still instantiates afterwards.
 */
async function assertFails(
  fixture: string,
  isolation: WasmTransportOptions['isolation'],
  code: MepErrorCode,
  options: Partial<WasmTransportOptions> = {},
): Promise<void> {
  const transport = await openFixture(fixture, isolation, options);
  try {
    const client = createTestClient(transport);
    const error = await rejection(client.request(1, 'ping'));
    assert.is(codeOf(error), code);
    assert.is(codeOf(await client.closed), code);
    assert.throws(() => transport.send({ jsonrpc: '2.0', id: 2, method: 'ping' }), (e: unknown) => codeOf(e) === LocalErrorCode.TransportClosed);
  } finally {
    await transport.close();
  }
  // A new session from the same (cached) module starts: the failure discarded only the instance.
  const again = await openFixture(fixture, isolation, options);
  await again.close();
  await assertHostAlive(isolation);
}

/** `error` is a guest's crash at instantiation, saying so, with V8's `detail`. */
function assertInstantiationCrash(error: unknown, detail: RegExp): void {
  assert.is(codeOf(error), LocalErrorCode.ExtensionCrashed, String(error));
  assert.match((error as Error).message, /^Wasm extension "[\w-]+" crashed: it failed while it was instantiated, before any call/);
  assert.match((error as Error).message, detail);
}

for (const isolation of ['inline', 'worker'] as const) {
  const hostile = suite(`hostile guests :: ${isolation}`);

  hostile('should stop a guest polling mep_interrupt at its deadline :: ERR_TIMEOUT', async () => {
    const started = performance.now();
    await assertFails('loop-polling', isolation, LocalErrorCode.Timeout, { limits: { callTimeoutMs: 1_000 } });
    assert.ok(performance.now() - started < 8_000);
  });

  hostile('should refuse memory growth beyond the cap :: ERR_LIMIT', async () => {
    await assertFails('memory-bomb', isolation, LocalErrorCode.Limit, { limits: { maxMemoryBytes: 16 * 1024 * 1024 } });
  });

  hostile('should refuse an oversized output before copying :: ERR_LIMIT', async () => {
    await assertFails('output-bomb', isolation, LocalErrorCode.Limit);
  });

  hostile('should fail on output that is not JSON :: ERR_PROTOCOL', async () => {
    await assertFails('bad-json', isolation, LocalErrorCode.Protocol);
  });

  hostile('should refuse a response nested 100,000 levels deep before parsing it :: ERR_LIMIT', async () => {
    await assertFails('deep-json', isolation, LocalErrorCode.Limit);
  });

  hostile('should fail on a response with another id :: ERR_PROTOCOL', async () => {
    await assertFails('wrong-id', isolation, LocalErrorCode.Protocol);
  });

  hostile('should fail on a trap :: ERR_EXTENSION_CRASHED', async () => {
    await assertFails('trap', isolation, LocalErrorCode.ExtensionCrashed);
  });

  hostile('should fail on a wasm exception thrown out of handle, saying so :: ERR_EXTENSION_CRASHED', async () => {
    // Before, the message said "crashed: [object WebAssembly.Exception]". Its bytes are refused
    // (exception handling), so the module is compiled by the caller.
    await assertFails('throw', isolation, LocalErrorCode.ExtensionCrashed, compiled('throw'));
    const transport = await openFixture('throw', isolation, compiled('throw'));
    try {
      const error = (await rejection(createTestClient(transport).request(1, 'ping'))) as Error;
      assert.not.match(error.message, /\[object /);
      assert.match(error.message, /threw a WebAssembly exception that it did not catch/);
    } finally {
      await transport.close();
    }
  });

  hostile('should fail on a stack overflow :: ERR_EXTENSION_CRASHED', async () => {
    await assertFails('stack-overflow', isolation, LocalErrorCode.ExtensionCrashed);
  });

  hostile('should refuse a guest importing WASI at instantiation :: -32012', async () => {
    const error = await rejection(openFixture('wasi', isolation));
    assert.is(codeOf(error), ErrorCode.PermissionDenied);
    assert.ok(((error as { data: { imports: string[] } }).data.imports).some((name) => name.startsWith('wasi_snapshot_preview1.path_open')));
    await assertHostAlive(isolation);
  });

  hostile("should refuse before compiling a guest using atomics, exception handling or tail calls (a wait with no timeout, a catch of the host's refusals, a return_call loop) :: -32012", async () => {
    // Before, inline, the wait blocked the host's thread for good and the catch answered the call.
    for (const [fixture, feature] of [['atomic-wait', 'threads'], ['catch-refusal', 'exception-handling'], ['tail-loop', 'tail-call']] as const) {
      const error = await rejection(openFixture(fixture, isolation));
      assert.is(codeOf(error), ErrorCode.PermissionDenied, `${fixture}: ${String(error)}`);
      assert.is((error as { data: { feature: string } }).data.feature, feature);
      assert.match((error as Error).message, /before it is compiled: it uses the .* proposal .*; rebuild this one without it/);
    }
    await assertHostAlive(isolation);
  });

  hostile("should fail a call whose guest caught the host's refusal and answered anyway, in a module compiled by the caller :: ERR_EXTENSION_CRASHED, ERR_PROTOCOL", async () => {
    // Before, both answered: "swallowed" after a mep_notify outside memory, "first" after a second output.
    await assertFails('catch-refusal', isolation, LocalErrorCode.ExtensionCrashed, compiled('catch-refusal'));
    await assertFails('catch-second-output', isolation, LocalErrorCode.Protocol, compiled('catch-second-output'));
  });

  hostile('should fail with a typed error naming the extension when its instantiation traps (a data segment past its memory) :: ERR_EXTENSION_CRASHED', async () => {
    // Before: inline, a bare RuntimeError with no code; in a worker, only V8's words.
    assertInstantiationCrash(await rejection(openFixture('data-out-of-bounds', isolation)), /data segment is out of bounds/);
    await assertHostAlive(isolation);
  });

  hostile('should refuse an initial memory above the cap :: ERR_LIMIT', async () => {
    assert.is(codeOf(await rejection(openFixture('memory-min-too-big', isolation))), LocalErrorCode.Limit);
    await assertHostAlive(isolation);
  });

  hostile.run();
}

const killed = suite('worker isolation');

killed('should fail with a typed error naming the extension when its start function overflows the stack, and start the next session :: ERR_EXTENSION_CRASHED', async () => {
  // Before: "Maximum call stack size exceeded", naming neither the extension nor when.
  assertInstantiationCrash(await rejection(openFixture('start-overflow', 'worker')), /Maximum call stack size exceeded/);
  await assertHostAlive('worker');
});

killed('should kill a guest that never polls at its deadline while the host keeps ticking', async () => {
  const deadline = 200;
  const transport = await openFixture('loop', 'worker', { limits: { callTimeoutMs: deadline } });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  try {
    const client = createTestClient(transport);
    const started = performance.now();
    const error = await rejection(client.request(1, 'ping'));
    const elapsed = performance.now() - started;
    assert.is(codeOf(error), LocalErrorCode.Timeout);
    assert.is(codeOf(await client.closed), LocalErrorCode.Timeout);
    // Not before its deadline, and soon after it (a loaded machine delays timers, so no tighter
    // bound: a guest that is not killed would spin for good).
    assert.ok(elapsed >= deadline - 1 && elapsed < deadline + 5_000, `stopped after ${elapsed.toFixed(1)} ms`);
    // A host thread blocked by the guest would not tick at all.
    assert.ok(ticks >= 3, `the host thread ticked only ${ticks} times while the guest spun`);
  } finally {
    clearInterval(ticker);
    await transport.close();
  }
  await assertHostAlive('worker');
});

killed('should stop a non-polling guest on close', async () => {
  const transport = await openFixture('loop', 'worker');
  const client = createTestClient(transport);
  const pending = rejection(client.request(1, 'ping'));
  await transport.close();
  assert.is(await client.closed, undefined);
  assert.is(codeOf(await pending), LocalErrorCode.TransportClosed);
});

/** Params big enough that a worker asks the guest to release the message after answering. */
const BIG_PARAMS = { data: 'x'.repeat(300 * 1024) };

killed('should answer a big call, then fail the next one when the guest traps releasing the message :: ERR_EXTENSION_CRASHED', async () => {
  const transport = await openFixture('release-trap', 'worker');
  try {
    const client = createTestClient(transport);
    assert.is((await client.request(1, 'generate', BIG_PARAMS)).result, null);
    const error = await rejection(client.request(2, 'ping'));
    assert.is(codeOf(error), LocalErrorCode.ExtensionCrashed);
    assert.match((error as Error).message, /failed while releasing its last message/);
    assert.is(codeOf(await client.closed), LocalErrorCode.ExtensionCrashed);
  } finally {
    await transport.close();
  }
  await assertHostAlive('worker');
});

killed('should answer a big call, then time out the next one while the guest spins releasing the message :: ERR_TIMEOUT', async () => {
  const deadline = 300;
  const transport = await openFixture('release-loop', 'worker', { limits: { callTimeoutMs: deadline } });
  try {
    const client = createTestClient(transport);
    assert.is((await client.request(1, 'generate', BIG_PARAMS)).result, null);
    const started = performance.now();
    const error = await rejection(client.request(2, 'ping'));
    assert.is(codeOf(error), LocalErrorCode.Timeout);
    assert.ok(performance.now() - started < deadline + 1_000, `stopped after ${(performance.now() - started).toFixed(0)} ms`);
  } finally {
    await transport.close();
  }
  await assertHostAlive('worker');
});

killed('should leave a small call\'s message to the next call (no release after a ping)', async () => {
  // release-trap traps only if asked to release: small calls never ask.
  const transport = await openFixture('release-trap', 'worker');
  try {
    const client = createTestClient(transport);
    for (let i = 0; i < 3; i++) assert.is((await client.request(1, 'ping')).result, null);
  } finally {
    await transport.close();
  }
});

killed.run();
