/**
 * The channel's signals between threads: a side is signalled only when it sleeps (worker-channel.ts
 * skips `Atomics.notify` otherwise), so these run the real functions on two threads — the worker's
 * side bundled for a plain worker thread, as the pool's entry is — and check that no wake-up is lost.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { awaitResult, Command, createChannel, postCommand, readResult, RESULT_FOR, RESULT_SEQ, writeResult, type Channel } from './worker-channel.ts';

const signals = suite('worker channel signals');

/** worker-channel.ts as one ES module a worker thread can import (no TypeScript loader there). */
let channelModule: Promise<string> | undefined;
const bundledChannel = (): Promise<string> =>
  (channelModule ??= import('esbuild').then(async ({ build }) => {
    const result = await build({ entryPoints: [fileURLToPath(new URL('./worker-channel.ts', import.meta.url))], bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
    return `data:text/javascript;base64,${Buffer.from(result.outputFiles[0]?.text ?? '').toString('base64')}`;
  }));

/**
 * A thread serving `ch` as a listening worker does, without polling: it sleeps at once whenever no
 * command is there, so a host sending right as it goes to sleep races it every time. It echoes each
 * call's input and stops at `Leave`.
 */
async function echoThread(ch: Channel): Promise<Worker> {
  const url = await bundledChannel();
  const code = `const { workerData, parentPort } = require('node:worker_threads');
import(workerData.url).then(({ awaitCommand, writeResult, Command }) => {
  let handled = 0;
  parentPort.postMessage('serving');
  for (;;) {
    const { seq, command, input } = awaitCommand(workerData.ch, handled);
    handled = seq;
    if (command === Command.Leave) break;
    writeResult(workerData.ch, seq, { ok: true, output: input, interrupt: 0, elapsedMs: 0 }, 0);
  }
});`;
  const thread = new Worker(code, { eval: true, workerData: { ch, url } });
  await new Promise((resolve) => thread.once('message', resolve));
  return thread;
}

/** Resolves once the result of command `seq` is published, waiting through the event loop only. */
function result(ch: Channel, seq: number): Promise<void> {
  return new Promise((resolve) => {
    const watch = (): void => {
      const bumps = Atomics.load(ch, RESULT_SEQ);
      if (Atomics.load(ch, RESULT_FOR) === seq) resolve();
      else awaitResult(ch, bumps, watch);
    };
    watch();
  });
}

/**
 * {@link result}, failing with `what` if it has not come after 20 s: a lost wake-up never ends by
 * itself (a liveness guard, not a timing: an answer takes microseconds).
 */
async function answered(ch: Channel, seq: number, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), 20_000);
  });
  try {
    await Promise.race([result(ch, seq), hung]);
  } finally {
    clearTimeout(timer);
  }
}

signals('should wake a sleeping side every time, though a side that is awake is not signalled', async () => {
  const ch = createChannel();
  const thread = await echoThread(ch);
  let foundAsleep = 0;
  try {
    for (let i = 0; i < 3000; i++) {
      const input = new TextEncoder().encode(`{"n":${i}}`);
      const { seq, workerAwake } = postCommand(ch, Command.Call, input, 1000);
      if (!workerAwake) foundAsleep++;
      await answered(ch, seq, `call ${i}: a wake-up was lost (the worker ${workerAwake ? 'was awake' : 'slept'} when it was sent)`);
      assert.equal(readResult(ch).outcome, { ok: true, output: input, interrupt: 0, elapsedMs: 0 });
    }
  } finally {
    postCommand(ch, Command.Leave);
    await thread.terminate();
  }
  // The race this is about was run: commands sent to a sleeping worker, results to a sleeping host.
  assert.ok(foundAsleep > 0, 'no command found the worker asleep');
});

signals('should say whether a signal woke the other side', async () => {
  const ch = createChannel();
  // Nobody waits on the result: the host was polling for it, or about to look.
  assert.ok(writeResult(ch, 1, { ok: true, output: null, interrupt: 0, elapsedMs: 0 }, 0));
  // The host waits for the result in its event loop: publishing it wakes the host.
  const woken = new Promise<void>((resolve) => awaitResult(ch, Atomics.load(ch, RESULT_SEQ), resolve));
  assert.not.ok(writeResult(ch, 2, { ok: true, output: null, interrupt: 0, elapsedMs: 0 }, 0), 'the host was asleep');
  await woken;
  // Woken once, the host is no longer counted: the next result signals nobody.
  assert.ok(writeResult(ch, 3, { ok: true, output: null, interrupt: 0, elapsedMs: 0 }, 0));
  // A worker blocked on the channel is woken by a command; one that is awake is not signalled.
  const thread = await echoThread(ch);
  try {
    let sent = postCommand(ch, Command.Call, new Uint8Array([1]));
    // It may not be blocked yet right after saying so: retry until a command finds it asleep.
    for (let tries = 0; sent.workerAwake && tries < 200; tries++) {
      await answered(ch, sent.seq, 'a command to a worker that was awake got no answer');
      await new Promise((resolve) => setTimeout(resolve, 5));
      sent = postCommand(ch, Command.Call, new Uint8Array([1]));
    }
    assert.not.ok(sent.workerAwake, 'no command found the worker asleep');
    await answered(ch, sent.seq, 'the sleeping worker was not woken');
  } finally {
    postCommand(ch, Command.Leave);
    await thread.terminate();
  }
});

signals.run();
