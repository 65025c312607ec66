/**
 * The Transport contract every way of reaching an extension implements (process, wasm, memory).
 * A transport moves whole JSON-RPC messages; it never interprets a method name.
 */
import type { MepError } from '../protocol/errors.ts';

/** A decoded JSON-RPC message: request, response or notification. Validated by `rpc/`. */
export type JsonRpcMessage = { [key: string]: unknown };

/** A listener disposer, returned by every `onX`. */
export type Disposer = () => void;

/** One human-readable log line of an extension. */
export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  source: string;
}

/**
 * Receives human-readable log lines from an extension (process stderr, wasm guest logs). A sink
 * whose consumer can fall behind (a stream to a slow reader) says so with `busy`: a process
 * transport then stops reading the extension's stderr — the extension waits on its writes, as it
 * would writing to a slow terminal — until the sink calls the listener given to `onDrain`.
 */
export interface LogSink {
  (entry: LogEntry): void;
  /** True while the sink's consumer is behind (optional). */
  readonly busy?: () => boolean;
  /** Calls `listener` once when the sink is no longer busy (with `busy`). */
  readonly onDrain?: (listener: () => void) => void;
}

/** A bidirectional message channel to one extension instance. */
export interface Transport {
  /** What the transport talks to, for error messages: an extension id or an artifact path. */
  readonly name: string;
  /** Queue one message to the extension. Throws MepError(ERR_TRANSPORT_CLOSED) once closed. */
  send(message: JsonRpcMessage): void;
  /** Called for every message from the extension, in arrival order. */
  onMessage(listener: (message: JsonRpcMessage) => void): Disposer;
  /**
   * Called once when the transport can carry no more messages; `error` says why when it was not
   * a requested close (crash, framing violation, limit). Pending requests must then be rejected.
   */
  onClose(listener: (error?: MepError) => void): Disposer;
  /**
   * Optional, for conformance testing only: deliver `body` to the extension exactly as given, even
   * when it is not valid JSON or not a JSON-RPC envelope, to see how the extension refuses it.
   */
  sendRaw?(body: string): void;
  /**
   * Optional out-of-band cancellation of request `id` (a JSON-RPC id, never a method): drop it if
   * still queued (answering -32800 for it) or interrupt it if running. The rpc peer calls this in
   * addition to sending `$/cancelRequest`.
   */
  cancel?(id: string | number): void;
  /**
   * Optional flow control, called by the rpc peer while a message handler is still working on
   * what arrived (a streamed artifact being written to a slow disk): hold the extension back,
   * by the transport's own means, until {@link Transport.resume}. Messages already on their way
   * may still arrive, but only a bounded amount (worker: its flow window; process: what was read
   * from the pipe). Without it the extension is not slowed down.
   */
  pause?(): void;
  /** Ends {@link Transport.pause}: take messages from the extension again. */
  resume?(): void;
  /**
   * True when the wire holds no session for its client: each request is answered on its own
   * (HTTP, the reference host's `HttpChannel`: one POST per request, no session id, no
   * notification reaches the extension). The server runs the extension's lifecycle; what needs
   * lifecycle state per client (a refusal before initialize, `morphir.exit`) cannot be asked.
   */
  readonly stateless?: boolean;
  /** Stop the extension and release everything; resolves when nothing is left running. */
  close(): Promise<void>;
}
