/**
 * The answer side of one HTTP exchange of `mep serve --http` (http-node.ts): an answer streamed as
 * server-sent events, its pace against what the client reads, and the probe that tells a
 * half-closed client from a gone one while its answer is pending.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { encodeSseEvent } from '../framing/sse.ts';
import { listenerSet, type ListenerSet } from '../transport/events.ts';
import type { JsonRpcMessage } from '../transport/types.ts';

/**
 * A client that ended its side of the connection while its answer is pending has either
 * half-closed (HTTP/1.1 allows it, and it is answered) or gone; on TCP the two look alike until
 * something is written. So the server writes at once and then each second: an interim
 * `102 Processing` before the answer's head (clients skip 1xx answers), an SSE comment after it.
 * To a gone client the write fails and the response closes, which cancels the call; before, the
 * call ran on to its deadline (30 s by default) with nobody to read its answer.
 */
export function probeEndedClient(req: IncomingMessage, res: ServerResponse): () => void {
  const socket = req.socket;
  let timer: NodeJS.Timeout | undefined;
  // HTTP/1.0 has no interim answers: its client takes the first status line as the answer (RFC
  // 9110 §15.2: never a 1xx to it). Until its head is out (an event stream's), it is not probed.
  const interim = req.httpVersionMajor > 1 || req.httpVersionMinor >= 1;
  const probe = (): void => {
    if (res.writableEnded || res.destroyed) return;
    if (res.headersSent) res.write(':\n\n');
    else if (interim) res.writeProcessing();
  };
  const ended = (): void => {
    probe();
    timer = setInterval(probe, 1_000);
  };
  let forget = (): void => undefined;
  if (socket.readableEnded) ended();
  else forget = endListenersOf(socket).add(ended);
  return () => {
    forget();
    clearInterval(timer);
  };
}

/** Per connection, what its end starts: one `end` listener for all its pipelined requests (up to maxPipelined). */
const endListeners = new WeakMap<Socket, ListenerSet<() => void>>();

function endListenersOf(socket: Socket): ListenerSet<() => void> {
  let listeners = endListeners.get(socket);
  if (listeners === undefined) {
    const created = listenerSet<() => void>();
    socket.once('end', () => created.emit());
    endListeners.set(socket, (listeners = created));
  }
  return listeners;
}

/**
 * Switches `res` to an SSE stream; returns the writer of one JSON-RPC message per event. After
 * each event `written` checks what clients left unread across the server (http-unread.ts): a
 * client that does not read is dropped once they pass `maxPendingBytes` (closing the response
 * cancels its call).
 */
export function openEventStream(res: ServerResponse, written: () => void): (message: JsonRpcMessage) => void {
  // Proxies must pass events on as they come (nginx buffers unless told).
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  res.flushHeaders();
  return (message) => {
    if (res.destroyed) return;
    res.write(encodeSseEvent(JSON.stringify(message)));
    written();
  };
}

/** An SSE stream's pace: busy while it holds more than `pauseAt` bytes unsent; drained at its next 'drain', or when it closes. */
export function paceOf(res: ServerResponse, pauseAt: number): { busy(): boolean; onDrain(listener: () => void): void } {
  return {
    busy: () => !res.destroyed && res.writableLength > pauseAt,
    onDrain(listener) {
      const once = (): void => {
        res.off('drain', once);
        res.off('close', once);
        listener();
      };
      res.on('drain', once);
      res.on('close', once);
    },
  };
}
