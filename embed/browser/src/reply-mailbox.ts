/**
 * The reply mailbox of browser worker isolation. Node's worker takes the host's answer to a guest
 * request synchronously with `receiveMessageOnPort`; a Web Worker cannot read its message queue
 * while wasm runs, so the host writes the answer into shared memory instead and the worker reads
 * it there while it waits (`serveWasmWorker`'s `receiveSync`).
 *
 * Layout (Int32 slots, then bytes): [0] state (0 empty, 1 full), [1] byte length, [2] sequence
 * number of the guest request it answers; bytes from offset 16. The sequence keeps a late answer
 * to a request that already stopped waiting from being taken as the answer to a later one.
 */

const HEADER_BYTES = 16;
const STATE = 0;
const LENGTH = 1;
const SEQUENCE = 2;

/** Default capacity: guest requests (`secret.resolve`) have small answers. */
export const DEFAULT_MAILBOX_BYTES = 1024 * 1024;

/** Allocates a mailbox for answers of up to `capacity` bytes. */
export function createReplyMailbox(capacity = DEFAULT_MAILBOX_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + capacity);
}

/** Host side: stores the answer to guest request number `sequence`; false when it does not fit. */
export function putReply(mailbox: SharedArrayBuffer, sequence: number, bytes: Uint8Array): boolean {
  if (bytes.length > mailbox.byteLength - HEADER_BYTES) return false;
  const header = new Int32Array(mailbox, 0, 3);
  new Uint8Array(mailbox, HEADER_BYTES, bytes.length).set(bytes);
  Atomics.store(header, LENGTH, bytes.length);
  Atomics.store(header, SEQUENCE, sequence);
  Atomics.store(header, STATE, 1);
  return true;
}

/** Worker side: takes the answer to guest request number `sequence`, dropping stale ones. */
export function takeReply(mailbox: SharedArrayBuffer, sequence: number): Uint8Array | undefined {
  const header = new Int32Array(mailbox, 0, 3);
  if (Atomics.load(header, STATE) !== 1) return undefined;
  const length = Atomics.load(header, LENGTH);
  const answered = Atomics.load(header, SEQUENCE);
  const bytes = answered === sequence ? new Uint8Array(mailbox, HEADER_BYTES, length).slice() : undefined;
  Atomics.store(header, STATE, 0);
  return bytes;
}
