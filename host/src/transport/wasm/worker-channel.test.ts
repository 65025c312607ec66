import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Worker } from 'node:worker_threads';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { GUEST_MEMORY_LOG, guestMemoryLine } from './engine.ts';
import { awaitCommand, CHANNEL_DATA_BYTES, CMD_SEQ, Command, createChannel, createSpinPolicy, fitsChannel, readResult, RESULT_FOR, sendCommand, SPIN_BACKOFF_MAX, writeResult, type SpinPolicy } from './worker-channel.ts';

const channel = suite('worker channel');

channel('should carry a call and its answer through shared memory, naming the command answered', () => {
  const ch = createChannel();
  const input = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}');
  const seq = sendCommand(ch, Command.Call, input, 1234);
  const command = awaitCommand(ch, seq - 1);
  assert.equal({ seq: command.seq, command: command.command, timeoutMs: command.timeoutMs }, { seq, command: Command.Call, timeoutMs: 1234 });
  assert.equal(command.input, input);
  const output = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}');
  writeResult(ch, seq, { ok: true, output, interrupt: 0, elapsedMs: 0.25 }, 3);
  assert.is(Atomics.load(ch, RESULT_FOR), seq);
  assert.equal(readResult(ch), { outcome: { ok: true, output, interrupt: 0, elapsedMs: 0.25 }, posted: 3 });
});

channel('should hand out inputs that own their buffer and survive the next command', () => {
  const ch = createChannel();
  const first = awaitCommand(ch, sendCommand(ch, Command.Call, new Uint8Array([1, 2, 3])) - 1);
  sendCommand(ch, Command.Call, new Uint8Array([9, 9, 9, 9]));
  assert.equal([...first.input], [1, 2, 3]);
  assert.is(first.input.byteLength, first.input.buffer.byteLength);
});

channel('should keep an answer without output apart from an empty one', () => {
  const ch = createChannel();
  writeResult(ch, 1, { ok: true, output: null, interrupt: 1, elapsedMs: 2 }, 0);
  assert.equal(readResult(ch).outcome, { ok: true, output: null, interrupt: 1, elapsedMs: 2 });
});

channel('should say "posted" for failures and for outputs over the data area :: hostile sizes', () => {
  const ch = createChannel();
  const exactly = new Uint8Array(CHANNEL_DATA_BYTES).fill(7);
  assert.ok(fitsChannel({ ok: true, output: exactly, interrupt: 0, elapsedMs: 0 }));
  writeResult(ch, 5, { ok: true, output: exactly, interrupt: 0, elapsedMs: 0 }, 0);
  const read = readResult(ch).outcome;
  assert.equal(read?.ok ? read.output : undefined, exactly);
  const over = { ok: true, output: new Uint8Array(CHANNEL_DATA_BYTES + 1), interrupt: 0, elapsedMs: 0 } as const;
  assert.not.ok(fitsChannel(over));
  const failed = { ok: false, error: { code: LocalErrorCode.ExtensionCrashed, message: 'trap' }, guestError: false, interrupt: 0, elapsedMs: 0 } as const;
  assert.not.ok(fitsChannel(failed));
  writeResult(ch, 6, failed, 2);
  assert.equal(readResult(ch), { outcome: null, posted: 2 });
  writeResult(ch, 7, 'posted', 0);
  assert.equal(readResult(ch), { outcome: null, posted: 0 });
});

channel('should carry the guest memory after the call as a number beside the output, whatever the size of the output', () => {
  const ch = createChannel();
  const output = new Uint8Array(CHANNEL_DATA_BYTES).fill(5);
  const outcome = { ok: true, output, interrupt: 0, elapsedMs: 1 } as const;
  assert.ok(fitsChannel(outcome));
  // 4 GiB, the most a wasm32 memory has: past what an Int32 slot holds.
  writeResult(ch, 1, outcome, 0, 4 * 1024 ** 3);
  assert.equal(readResult(ch), { outcome, posted: 0, memoryBytes: 4 * 1024 ** 3 });
  writeResult(ch, 2, { ok: true, output: null, interrupt: 0, elapsedMs: 1 }, 0, 0);
  assert.is(readResult(ch).memoryBytes, 0, 'a memory of no pages is a figure too');
  writeResult(ch, 3, outcome, 0);
  assert.is(readResult(ch).memoryBytes, undefined, 'a result without one leaves none of the last one');
  assert.is(guestMemoryLine(131072), 'guest memory: 131072 bytes after handle');
  assert.ok(GUEST_MEMORY_LOG.test(guestMemoryLine(0)));
});

channel('should number commands in order, so a worker never runs one twice', () => {
  const ch = createChannel();
  const a = sendCommand(ch, Command.Renew);
  const b = sendCommand(ch, Command.Leave);
  assert.is(b, a + 1);
  assert.is(Atomics.load(ch, CMD_SEQ), b);
  assert.is(awaitCommand(ch, a).command, Command.Leave);
});

/** A policy of equal bounds for both kinds of wait. */
const policy = (ms: number): SpinPolicy => createSpinPolicy({ awakeMs: ms, asleepMs: ms });

channel('should poll until what it waits for is ready, and give up after its bound', () => {
  const spin = policy(0.05);
  assert.ok(spin.spin(() => true, true));
  assert.ok(spin.spin(() => true, true), 'a poll that caught its event does not back off');
  let polls = 0;
  assert.not.ok(spin.spin(() => (polls++, false), true));
  assert.ok(polls >= 1);
});

channel('should look once more when a poll ends (its bound reached or its CPU lost) before it counts a miss and backs off', () => {
  const spin = policy(0);
  let looks = 0;
  // Ready from the second look on: arrived while the poll was ending (or while the thread was off its CPU).
  assert.ok(spin.spin(() => ++looks > 1, true), 'caught at the last look');
  assert.equal(spin.stats.awake, { caught: 1, missed: 0, skipped: 0 });
  // So the next wait polls again instead of sleeping at once.
  let polled = false;
  spin.spin(() => ((polled = true), true), true);
  assert.ok(polled, 'no backoff after a catch at the last look');
});

channel('should back off after polls in vain — 1, 2, 4… waits up to the bound — and halve the backoff on each catch', () => {
  const spin = policy(0.001);
  const polled: number[] = [];
  for (let wait = 0; wait < 400; wait++) {
    let called = false;
    spin.spin(() => ((called = true), false), false);
    if (called) polled.push(wait);
  }
  const gaps = polled.slice(1).map((at, i) => at - (polled[i] as number) - 1);
  assert.equal(gaps.slice(0, 8), [1, 2, 4, 8, 16, 32, 64, 64]);
  assert.ok(gaps.every((gap) => gap <= SPIN_BACKOFF_MAX));
  // Skips what is left of the backoff; a poll that catches then halves it (64 to 32), so the
  // failure after it backs off 64 waits again, not 1.
  while (!spin.spin(() => true, false));
  spin.spin(() => false, false);
  const skippedBeforePoll = (): number => {
    for (let skipped = 0; ; skipped++) {
      let called = false;
      spin.spin(() => ((called = true), true), false);
      if (called) return skipped;
    }
  };
  assert.is(skippedBeforePoll(), SPIN_BACKOFF_MAX);
  // Catches in a row bring it down to nothing: 32 (just now), 16, 8, 4, 2, 1, 0.
  for (let i = 0; i < 6; i++) assert.ok(spin.spin(() => true, false));
  spin.spin(() => false, false);
  assert.is(skippedBeforePoll(), 1);
  assert.equal(spin.stats.awake, { caught: 0, missed: 0, skipped: 0 }, 'waits of the other kind untouched');
});

channel('should back off waits for a sleeping peer and for an awake one apart, and count each', () => {
  const spin = policy(0.001);
  // Polls for a peer that had to be woken fail (on a virtual machine the wake-up outlasts the poll)…
  for (let i = 0; i < 400; i++) spin.spin(() => false, false);
  // …which no longer stops polling for a peer that was awake: it answers within the poll.
  let polled = 0;
  assert.ok(spin.spin(() => (polled++, true), true));
  assert.not.ok(spin.spin(() => (polled++, true), false), 'a sleeping peer is still backed off from');
  assert.is(polled, 1);
  // And the other way round (a crowded machine, where an awake peer is off its CPU as often as not).
  const crowded = policy(0.001);
  for (let i = 0; i < 400; i++) crowded.spin(() => false, true);
  assert.ok(crowded.spin(() => true, false));
  const { awake, asleep } = spin.stats;
  assert.equal(awake, { caught: 1, missed: 0, skipped: 0 });
  assert.equal(asleep.caught + asleep.missed + asleep.skipped, 401);
  assert.ok(asleep.skipped > 20 * asleep.missed, 'failed polls back off');
});

/**
 * Fast waits caught in the first 100 after 200 slow ones (a busy second, a collection): with
 * `report`, each wait that was not caught tells the policy what it took in the end (1 ms slow,
 * 0 fast), as the channel's two sides do.
 */
function caughtAfterSlowPhase(report: boolean): number {
  const spin = policy(0.001);
  let caught = 0;
  for (let i = 0; i < 300; i++) {
    const slow = i < 200;
    const hit = spin.spin(() => !slow, true);
    if (!hit && report) spin.took(true, slow ? 1 : 0);
    if (!slow && hit) caught++;
  }
  return caught;
}

channel('should poll again from the first wait it skipped that a poll would have caught, not after the rest of its backoff', () => {
  // Without the evidence of skipped waits, the backoff of the slow phase (64) outlives it: the
  // first 64 fast waits sleep (each a cross-thread wake-up of tens of µs), then polls catch.
  assert.is(caughtAfterSlowPhase(false), 36);
  // With it, only the first fast wait is skipped.
  assert.is(caughtAfterSlowPhase(true), 99);
});

channel('should keep backing off when the waits it skipped took longer than its bound (a slow peer), or when polls miss a quick peer', () => {
  const polledWaits = (report: (spin: SpinPolicy) => void): number[] => {
    const spin = policy(0.001);
    const polled: number[] = [];
    for (let wait = 0; wait < 200; wait++) {
      let called = false;
      if (!spin.spin(() => ((called = true), false), true)) report(spin);
      if (called) polled.push(wait);
    }
    return polled;
  };
  const unreported = polledWaits(() => undefined);
  assert.equal(polledWaits((spin) => spin.took(true, 5)), unreported, 'slower than the bound: the same backoff');
  assert.equal(polledWaits((spin) => spin.took(false, 0)), unreported, 'a quick wait of the other kind changes nothing');
  // A quick peer whose answers the polls miss all the same (a crowded machine: the threads lose
  // their CPUs): one poll resumed by a quick skipped wait misses, and skipped waits are not
  // believed any more: the same backoff, two waits later.
  const crowded = polledWaits((spin) => spin.took(true, 0));
  assert.equal(crowded, [0, ...unreported.map((wait) => wait + 2).filter((wait) => wait < 200)]);
  // Believed again once a poll caught.
  const spin = policy(0.001);
  const waits = (ready: boolean, took?: number): boolean => {
    let polled = false;
    spin.spin(() => ((polled = true), ready), true);
    if (took !== undefined) spin.took(true, took);
    return polled;
  };
  const polls = [waits(false), waits(false, 0), waits(false), waits(false, 0), waits(false), waits(false, 0), waits(false)];
  assert.equal(polls, [true, false, true, false, true, false, false], 'a resumed poll missed: quick skipped waits not believed');
  while (!waits(true));
  assert.equal([waits(false), waits(false, 0), waits(true)], [true, false, true], 'believed again after the catch');
  // A report after a catch changes nothing: the catch was counted.
  const fresh = policy(0.001);
  assert.ok(fresh.spin(() => true, false));
  fresh.took(false, 0);
  assert.equal(fresh.stats.asleep, { caught: 1, missed: 0, skipped: 0 });
});

/**
 * Two threads' policies over exchanges of a quick call (the host sends, the worker answers), on a
 * machine where a cross-thread wake-up outlasts a short poll: the host catches the answer when the
 * worker was awake for the command, the worker catches the next command at once when the host
 * caught the answer, and — polling for the longer bound of a sleeping peer — when the host had to
 * be woken. After `slow` exchanges where nothing is caught (V8 compiling, a busy second), the share
 * of later exchanges the host caught.
 */
function fastShareAfterSlowPhase(rule: 'one short poll' | 'kinds apart', slow = 500, after = 3000): number {
  const kindsApart = rule === 'kinds apart';
  const host = policy(0.001);
  const worker = policy(0.001);
  let workerAwake = false;
  let fast = 0;
  for (let i = 0; i < slow + after; i++) {
    const quiet = i >= slow;
    const hostCaught = host.spin(() => quiet && workerAwake, kindsApart && workerAwake);
    // Before, a worker polled as briefly (and backed off alike) whatever the host did.
    workerAwake = worker.spin(() => quiet && (hostCaught || kindsApart), kindsApart && hostCaught);
    if (quiet && hostCaught) fast++;
  }
  return fast / after;
}

channel('should leave a slow phase: back-to-back calls are caught again, where the old rule stayed asleep for good', () => {
  assert.ok(fastShareAfterSlowPhase('one short poll') < 0.01, 'the old rule never recovers (the mechanism of the bimodal ping)');
  assert.ok(fastShareAfterSlowPhase('kinds apart') > 0.9);
});

channel('should poll for the next command as the host was: awake or woken', () => {
  const ch = createChannel();
  const spin = policy(0.001);
  const seq = sendCommand(ch, Command.Renew);
  assert.is(awaitCommand(ch, seq - 1, spin, false).seq, seq);
  assert.equal(spin.stats, { awake: { caught: 0, missed: 0, skipped: 0 }, asleep: { caught: 0, missed: 0, skipped: 0 } }, 'a command already there costs no wait');
  // Not there yet: another thread sends it while this one waits.
  const sendFromThread = (): void => void new Worker(`const { workerData: ch } = require('node:worker_threads'); Atomics.add(ch, ${CMD_SEQ}, 1); Atomics.notify(ch, ${CMD_SEQ});`, { eval: true, workerData: ch });
  sendFromThread();
  assert.is(awaitCommand(ch, seq, spin, true).seq, seq + 1);
  assert.is(spin.stats.awake.caught + spin.stats.awake.missed, 1);
  sendFromThread();
  assert.is(awaitCommand(ch, seq + 1, spin, false).seq, seq + 2);
  assert.is(spin.stats.asleep.caught + spin.stats.asleep.missed, 1);
});

channel.run();
