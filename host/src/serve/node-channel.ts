/**
 * Node binding of {@link ByteChannel}: a pair of streams (stdin/stdout) or a socket.
 */
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { listenerSet } from '../transport/events.ts';
import type { ByteChannel } from './byte-channel.ts';

/**
 * A channel reading `input` and writing `output` (for `mep serve` over stdio). Closing it stops
 * reading and ends `output` unless it is the process's stdout or stderr.
 *
 * @example
 * const connection = server.connect(channelFromStreams(process.stdin, process.stdout, 'stdio'));
 * await connection.closed;
 */
export function channelFromStreams(input: Readable, output: Writable, name: string): ByteChannel {
  const endListeners = listenerSet<(error?: Error) => void>();
  let ended = false;
  const end = (error?: Error): void => {
    if (ended) return;
    ended = true;
    endListeners.emit(error);
  };
  const inputEndListeners = listenerSet<() => void>();
  let inputEnded = false;
  input.on('end', () => {
    inputEnded = true;
    // Half-closed: the client still reads its answers, when someone waits to write them.
    if (inputEndListeners.size === 0) end();
    else inputEndListeners.emit();
  });
  input.on('close', () => {
    if (!inputEnded) end();
  });
  input.on('error', (error) => end(error));
  output.on('error', (error) => end(error));
  return {
    name,
    get pendingBytes() {
      return output.writableLength;
    },
    write(bytes) {
      if (!ended && output.writable) output.write(bytes);
    },
    pause() {
      input.pause();
    },
    resume() {
      if (!ended) input.resume();
    },
    onDrain(listener) {
      output.on('drain', listener);
      return () => void output.off('drain', listener);
    },
    onData(listener) {
      const handler = (chunk: Buffer): void => listener(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      input.on('data', handler);
      return () => void input.off('data', handler);
    },
    onEnd: (listener) => endListeners.add(listener),
    onInputEnd: (listener) => inputEndListeners.add(listener),
    close() {
      input.pause();
      if (output !== process.stdout && output !== process.stderr) output.end();
      end();
    },
    destroy() {
      input.destroy();
      // The process's own stdout cannot be taken back; anything else is dropped with its backlog.
      if (output !== process.stdout && output !== process.stderr) output.destroy();
      end();
    },
  };
}

/** A channel over one socket connection (its server made with `allowHalfOpen: true` for half-close); closing it ends the socket. */
export function channelFromSocket(socket: Socket, name: string): ByteChannel {
  const endListeners = listenerSet<(error?: Error) => void>();
  let ended = false;
  let failure: Error | undefined;
  const end = (): void => {
    if (ended) return;
    ended = true;
    endListeners.emit(failure);
  };
  const inputEndListeners = listenerSet<() => void>();
  socket.on('error', (error) => (failure = error));
  socket.on('close', end);
  // A client that half-closes has sent everything it will send, and still reads: whoever listens
  // answers what it asked, then ends the socket; without a listener it is ended at once.
  socket.on('end', () => {
    if (inputEndListeners.size === 0) socket.end();
    else inputEndListeners.emit();
  });
  return {
    name,
    get pendingBytes() {
      return socket.writableLength;
    },
    write(bytes) {
      if (!ended && socket.writable) socket.write(bytes);
    },
    pause() {
      socket.pause();
    },
    resume() {
      if (!ended) socket.resume();
    },
    onDrain(listener) {
      socket.on('drain', listener);
      return () => void socket.off('drain', listener);
    },
    onData(listener) {
      const handler = (chunk: Buffer): void => listener(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      socket.on('data', handler);
      return () => void socket.off('data', handler);
    },
    onEnd: (listener) => endListeners.add(listener),
    onInputEnd: (listener) => inputEndListeners.add(listener),
    close() {
      socket.end();
      socket.destroySoon();
    },
    destroy() {
      socket.destroy();
    },
  };
}
