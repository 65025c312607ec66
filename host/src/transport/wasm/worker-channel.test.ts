import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalErrorCode } from '../../protocol/errors.ts';
import { awaitCommand, CHANNEL_DATA_BYTES, CMD_SEQ, Command, createChannel, createSpinPolicy, encodeNote, fitsChannel, readResult, RESULT_FOR, sendCommand, SPIN_BACKOFF_MAX, writeResult } from './worker-channel.ts';

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

channel('should carry the engine note after the output, only when both fit', () => {
  const ch = createChannel();
  const note = encodeNote('guest memory: 131072 bytes after handle');
  const output = new Uint8Array(CHANNEL_DATA_BYTES - note.length).fill(5);
  const outcome = { ok: true, output, interrupt: 0, elapsedMs: 1 } as const;
  assert.ok(fitsChannel(outcome, note));
  writeResult(ch, 1, outcome, 0, note);
  assert.equal(readResult(ch), { outcome, posted: 0, note: 'guest memory: 131072 bytes after handle' });
  assert.not.ok(fitsChannel({ ...outcome, output: new Uint8Array(output.length + 1) }, note));
  writeResult(ch, 2, { ok: true, output: null, interrupt: 0, elapsedMs: 1 }, 0, encodeNote('é'));
  assert.is(readResult(ch).note, 'é');
  writeResult(ch, 3, outcome, 0);
  assert.is(readResult(ch).note, undefined, 'a result without a note leaves none of the last one');
});

channel('should number commands in order, so a worker never runs one twice', () => {
  const ch = createChannel();
  const a = sendCommand(ch, Command.Renew);
  const b = sendCommand(ch, Command.Leave);
  assert.is(b, a + 1);
  assert.is(Atomics.load(ch, CMD_SEQ), b);
  assert.is(awaitCommand(ch, a).command, Command.Leave);
});

channel('should poll until what it waits for is ready, and give up after its bound', () => {
  const spin = createSpinPolicy(0.05);
  assert.ok(spin.spin(() => true));
  assert.ok(spin.spin(() => true), 'a poll that caught its event does not back off');
  let polls = 0;
  assert.not.ok(spin.spin(() => (polls++, false)));
  assert.ok(polls >= 1);
});

channel('should back off after polls in vain — 1, 2, 4… waits up to the bound — and halve the backoff on each catch', () => {
  const spin = createSpinPolicy(0.001);
  const polled: number[] = [];
  for (let wait = 0; wait < 400; wait++) {
    let called = false;
    spin.spin(() => ((called = true), false));
    if (called) polled.push(wait);
  }
  const gaps = polled.slice(1).map((at, i) => at - (polled[i] as number) - 1);
  assert.equal(gaps.slice(0, 8), [1, 2, 4, 8, 16, 32, 64, 64]);
  assert.ok(gaps.every((gap) => gap <= SPIN_BACKOFF_MAX));
  // Skips what is left of the backoff; a poll that catches then halves it (64 to 32), so the
  // failure after it backs off 64 waits again, not 1.
  while (!spin.spin(() => true));
  spin.spin(() => false);
  const skippedBeforePoll = (): number => {
    for (let skipped = 0; ; skipped++) {
      let called = false;
      spin.spin(() => ((called = true), true));
      if (called) return skipped;
    }
  };
  assert.is(skippedBeforePoll(), SPIN_BACKOFF_MAX);
  // Catches in a row bring it down to nothing: 32 (just now), 16, 8, 4, 2, 1, 0.
  for (let i = 0; i < 6; i++) assert.ok(spin.spin(() => true));
  spin.spin(() => false);
  assert.is(skippedBeforePoll(), 1);
});

channel.run();
