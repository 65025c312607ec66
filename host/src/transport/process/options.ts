/** The options and the interface of a process transport. */
import type { HeldBudget } from '../../framing/held-budget.ts';
import type { LogSink, Transport } from '../types.ts';
import type { ProcessCap, ProcessMemory } from './proc-memory.ts';

/** Options for {@link createProcessTransport}. */
export interface ProcessTransportOptions {
  /** The extension's name (its id), used in every error and log entry. */
  name: string;
  /** Executable to run (an absolute path is safest: the child gets no PATH unless you pass one). */
  command: string;
  /** Arguments. */
  args?: readonly string[];
  /** Working directory; required and explicit (MEP 0.1, Security). */
  cwd: string;
  /** The child's whole environment: exactly these entries, nothing inherited. Default empty. */
  env?: Readonly<Record<string, string>>;
  /** Message framing on stdio. Default 'content-length' (MEP 0.1). */
  framing?: 'content-length' | 'ndjson';
  /** Largest incoming message in bytes. Default 64 MiB for Content-Length, 8 MiB for ndjson. */
  maxMessageBytes?: number;
  /** Largest outgoing message in bytes (the encoded JSON), refused before writing. Default 64 MiB. */
  maxRequestBytes?: number;
  /**
   * Bytes of notifications (the artifacts of a running request aside) the extension may send
   * between two requests of the host; past it the session ends with ERR_LIMIT. Default 64 MiB.
   */
  maxNotificationBytes?: number;
  /**
   * Bytes the host may have written that the child has not read yet, past which the host stops
   * reading the child's stdout (holding it). Default HOST_BOUNDS.maxStdinBacklogBytes (16 MiB).
   */
  maxStdinBacklogBytes?: number;
  /**
   * How long a held child may go on not reading before it is ended with ERR_LIMIT, in ms.
   * Default HOST_BOUNDS.stdinStallMs.
   */
  stdinStallMs?: number;
  /**
   * How the child and whatever it starts are kept together so that all of them end with the
   * session: 'auto' (default) a PID namespace of its own where the system allows it (nothing in
   * it survives, even after `setsid`), else its process group; 'process-group' the group only.
   */
  containment?: 'auto' | 'process-group';
  /**
   * A budget of unfinished frames shared with other transports (`mep serve`'s sessions): this
   * one's partial frame and frames not parsed yet count against it; past it the session ends
   * with ERR_LIMIT (`maxFrameBufferBytes`). None: only `maxMessageBytes` bounds it.
   */
  frameBudget?: HeldBudget;
  /** Receives the extension's stderr, one entry per line. Without it lines are only kept for crash reports. */
  log?: LogSink;
  /** How long close() waits after ending stdin before SIGTERM. Default 2000 ms. */
  killGraceMs?: number;
  /** How long close() waits after SIGTERM before SIGKILL. Default 1000 ms. */
  termGraceMs?: number;
  /**
   * The address-space cap the command runs under (`prlimit --as`), in bytes: named in the report
   * of a crash, which may have been the cap.
   */
  memoryLimitBytes?: number;
  /** A Node.js script's V8 heap limit in bytes: the limit its out-of-memory report names and sizes its raise from. */
  heapLimitBytes?: number;
}

/** A {@link Transport} to a child process. */
export interface ProcessTransport extends Transport {
  /** The child's process id (undefined when it could not be spawned). */
  readonly pid: number | undefined;
  /**
   * The extension's memory now (proc-memory.ts: its resident and address-space peaks), read from
   * the extension itself, not its launcher; undefined where it cannot be read (not Linux) or after
   * it exited.
   */
  memory(): ProcessMemory | undefined;
  /** The cap it was given ({@link ProcessTransportOptions.memoryLimitBytes} first, else `heapLimitBytes`), if any. */
  readonly memoryCap: ProcessCap | undefined;
  /** Frame `body` as given and write it (conformance tests of malformed input). */
  sendRaw(body: string): void;
}
