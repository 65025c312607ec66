/**
 * A {@link Transport} over a {@link ByteChannel} speaking newline-delimited JSON-RPC (one
 * message per line, host-daemon protocol), used by the served host for its clients.
 *
 * JSON-RPC 2.0, Error object: a line that is not JSON is answered with a Parse error (id null)
 * and the connection goes on, as does a line nested deeper than the host reads (Invalid request,
 * unread); a line that is not one JSON object (a batch, a log line) cannot be
 * framed safely, so it is answered the same way and the connection is closed.
 *
 * Back-pressure: answers pile up in this process when a client sends requests but does not read
 * its answers. Past `pauseAtBytes` of unsent output the client's input is no longer read (no new
 * requests start) until the output drains; past `maxPendingBytes` the client is dropped, with a
 * logged reason, and its sessions are closed.
 */
import { jsonChunks } from '../framing/json-chunks.ts';
import { createNdjsonDecoder, encodeNdjson } from '../framing/ndjson.ts';
import { ErrorCode, LocalErrorCode, MepError, isMepError } from '../protocol/errors.ts';
import { createTransportEvents, listenerSet } from '../transport/events.ts';
import type { Disposer, JsonRpcMessage, Transport } from '../transport/types.ts';
import type { ByteChannel } from './byte-channel.ts';
import { refuseDeepRequest } from './deep-request.ts';
import { createOrderedParser } from '../framing/ordered-parse.ts';
import type { HeldBudget } from '../framing/held-budget.ts';
import type { UnsentBudget } from './unsent-budget.ts';

/** Options of {@link createLineTransport}. */
export interface LineTransportOptions {
  /** Longest accepted line in bytes. Default 64 MiB (the wasm message limit). */
  maxLineBytes?: number;
  /** Unsent output past which the client's input is paused. Default 8 MiB. */
  pauseAtBytes?: number;
  /** Unsent output past which the client is dropped. Default 128 MiB. */
  maxPendingBytes?: number;
  /** Receives the reason when a client is dropped. */
  log?: (message: string) => void;
  /** The server's budget of unfinished lines, shared by all its connections; none: unshared. */
  lineBudget?: HeldBudget;
  /** The server's bound of unread answers over all its connections; none: this connection's own bound only. */
  unsent?: UnsentBudget;
}

/**
 * Default of the server-wide budget of unfinished lines (a {@link HeldBudget}): each connection
 * buffers up to a line (64 MiB) before it is parsed, and 1,024 of them 64 GiB.
 */
export const DEFAULT_SERVE_MAX_LINE_BUFFER_BYTES = 128 * 1024 * 1024;

/** How often a half-closed client is written a blank line, to notice it gone (see createLineTransport). */
const HALF_CLOSE_PROBE_MS = 1_000;
const BLANK_LINE = new TextEncoder().encode('\n');

/** Default line limit of a served connection: large enough for a 64 MiB Morphir IR. */
export const DEFAULT_SERVE_MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Default unsent output at which a client's input is paused. */
export const DEFAULT_SERVE_PAUSE_AT_BYTES = 8 * 1024 * 1024;
/** Default unsent output at which a client is dropped: two answers of the largest line and more. */
export const DEFAULT_SERVE_MAX_PENDING_BYTES = 128 * 1024 * 1024;

/** A line transport, told when its client half-closed. */
export interface LineTransport extends Transport {
  /**
   * Called once when the client half-closed and every line it sent was parsed and delivered (an
   * unfinished last line is dropped): nothing more will arrive. Without a listener, a half-close
   * closes the transport as a disconnect does.
   */
  onInputEnd(listener: () => void): Disposer;
}

/**
 * Wraps `channel` as a Transport of JSON-RPC messages. The transport owns the channel: closing
 * one closes the other.
 *
 * @example
 * const peer = createPeer(createLineTransport(channel));
 * try { peer.onRequest('server/info', () => ({ ok: true })); } finally { await peer.close(); }
 */
export function createLineTransport(channel: ByteChannel, options: LineTransportOptions = {}): LineTransport {
  const name = channel.name;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_SERVE_MAX_LINE_BYTES;
  const decoder = createNdjsonDecoder({ name, maxLineBytes, oversizeAdvice: `The served host accepts lines of at most ${maxLineBytes} bytes; send smaller messages, or start mep serve with a larger --max-message.` });
  const events = createTransportEvents();
  const pauseAtBytes = options.pauseAtBytes ?? DEFAULT_SERVE_PAUSE_AT_BYTES;
  const maxPendingBytes = options.maxPendingBytes ?? DEFAULT_SERVE_MAX_PENDING_BYTES;
  const lineAccount = options.lineBudget?.account();
  let closed = false;
  let paused = false;
  /** A large line is being parsed (in slices): the client's input is held until it is done. */
  let parsing = false;
  const flow = (): void => (paused || parsing ? channel.pause() : channel.resume());
  let closeError: MepError | undefined;

  const write = (message: JsonRpcMessage): void => {
    let line: string | undefined;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // Past V8's longest string (an answer of control characters, each escaped to six, under a
      // raised --max-message): the same line, written in chunks (compact JSON has no line feed).
      if (!(error instanceof RangeError)) throw error;
    }
    if (line !== undefined) channel.write(encodeNdjson(line));
    else {
      for (const chunk of jsonChunks(message)) channel.write(new TextEncoder().encode(chunk));
      channel.write(new TextEncoder().encode('\n'));
    }
    const pending = channel.pendingBytes;
    if (pending > maxPendingBytes) {
      const reason = `${name} was dropped: ${pending} bytes of answers are waiting to be read (limit ${maxPendingBytes}); a client must read what it asked for. Its sessions are closed.`;
      options.log?.(reason);
      finish(new MepError(LocalErrorCode.Limit, reason, { data: { pendingBytes: pending, limit: maxPendingBytes } }), true);
    } else if (pending > pauseAtBytes && !paused) {
      // Stop taking requests from a client that does not take its answers; 'drain' resumes.
      paused = true;
      flow();
    }
    if (!closed) unsentSlot?.update();
  };
  // Unread answers over all the server's clients: past its bound, the client holding the most goes.
  const unsentSlot = options.unsent?.join({
    name,
    pending: () => channel.pendingBytes,
    drop(reason, data) {
      options.log?.(reason);
      finish(new MepError(LocalErrorCode.Limit, reason, { data }), true);
    },
  });
  const refuse = (code: number, message: string, data?: Record<string, unknown>): void =>
    write({ jsonrpc: '2.0', id: null, error: data === undefined ? { code, message } : { code, message, data } });

  const finish = (error: MepError | undefined, discard = false): void => {
    if (closed) return;
    closed = true;
    closeError = error;
    lineAccount?.release();
    unsentSlot?.leave();
    parser.close();
    disposeData();
    disposeEnd();
    disposeDrain();
    disposeInputEnd();
    clearInterval(probe);
    if (discard) channel.destroy();
    else channel.close();
    events.emitClose(error);
  };

  const receive = (body: string): void => {
    // Unread, so that no walk of the value (logging, redaction, stringify) can overflow the stack.
    const deep = refuseDeepRequest(body, `line from ${name}`);
    if (deep) {
      write({ jsonrpc: '2.0', id: deep.id, error: deep.error.toJSON() });
      return;
    }
    parser.push(body);
  };
  // In arrival order; a large line in slices, so one line of millions of values does not hold
  // the event loop every other client shares (11 MB of `[{},{},…]` was 2.8 s of JSON.parse).
  const parser = createOrderedParser({
    onValue(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        refuse(ErrorCode.InvalidRequest, `Invalid request: a line from ${name} is not a JSON-RPC 2.0 object.`);
        return;
      }
      events.emitMessage(value as JsonRpcMessage);
    },
    onError(error) {
      refuse(ErrorCode.ParseError, `Parse error: a line from ${name} is not valid JSON (${(error as Error).message}); send one JSON-RPC 2.0 object per line.`);
    },
    onBusy(busy) {
      parsing = busy;
      if (!closed) flow();
      if (!busy) inputDone();
    },
  });

  // Half-close: once the client's last line is delivered, tell the listeners (the connection
  // answers what is running, then closes). The unfinished line's share of the budget is given back.
  let inputEndListeners = listenerSet<() => void>();
  let inputEnded = false;
  const inputDone = (): void => {
    if (!inputEnded || parsing || closed) return;
    const listeners = inputEndListeners;
    inputEndListeners = listenerSet();
    listeners.emit();
  };
  // A half-close cannot be told from a client that has gone altogether (both are an end of its
  // input) until something is written: a blank line (NDJSON readers skip them) at once and each
  // second while answers are outstanding, so a gone client's write error ends the connection and
  // cancels its calls, as a disconnect does, instead of holding them to their deadlines.
  let probe: ReturnType<typeof setInterval> | undefined;
  const disposeInputEnd =
    channel.onInputEnd?.(() => {
      if (closed) return;
      if (inputEndListeners.size === 0) return finish(undefined);
      inputEnded = true;
      lineAccount?.release();
      channel.write(BLANK_LINE);
      probe = setInterval(() => channel.write(BLANK_LINE), HALF_CLOSE_PROBE_MS);
      probe.unref?.();
      inputDone();
    }) ?? (() => undefined);

  const disposeData = channel.onData((chunk) => {
    if (closed) return;
    try {
      decoder.push(chunk, receive);
      if (lineAccount !== undefined && !lineAccount.hold(decoder.bufferedBytes)) {
        const maxBytes = options.lineBudget?.maxBytes;
        const reason = `${name} was dropped: its unfinished line of ${decoder.bufferedBytes} bytes took the server's lines in progress past ${maxBytes} bytes (maxLineBufferBytes, over all clients). Retry when the server is less busy; the connection is closed.`;
        options.log?.(reason);
        refuse(ErrorCode.ExtensionFailure, reason, { localCode: LocalErrorCode.Limit, limit: 'maxLineBufferBytes', limitBytes: maxBytes });
        finish(new MepError(LocalErrorCode.Limit, reason, { data: { limit: 'maxLineBufferBytes', limitBytes: maxBytes } }));
      }
    } catch (error) {
      if (!isMepError(error)) throw error;
      // The decoder's message is written for extensions; the client gets one written for it.
      const limit = (error.data as { limit?: number } | undefined)?.limit;
      const problem = limit === undefined ? 'a line that is not one UTF-8 JSON object' : `a line longer than ${limit} bytes`;
      refuse(ErrorCode.ParseError, `Parse error: ${name} sent ${problem}. Send one JSON-RPC 2.0 object per line (batches are not supported); the connection is closed.`);
      finish(error);
    }
  });
  const disposeDrain = channel.onDrain(() => {
    if (!closed) unsentSlot?.update();
    if (!paused || closed) return;
    paused = false;
    flow();
  });
  const disposeEnd = channel.onEnd((error) => {
    finish(error === undefined ? undefined : new MepError(LocalErrorCode.TransportClosed, `The connection to ${name} failed: ${error.message}.`, { cause: error }));
  });

  return {
    name,
    send(message) {
      if (closed) {
        throw new MepError(LocalErrorCode.TransportClosed, `The connection to ${name} is closed; the client has gone.`, { cause: closeError });
      }
      write(message);
    },
    onMessage: events.onMessage,
    onClose: events.onClose,
    onInputEnd: (listener) => inputEndListeners.add(listener),
    async close() {
      finish(undefined);
    },
  };
}
