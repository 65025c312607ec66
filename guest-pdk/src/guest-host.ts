/**
 * What the guest needs from whatever runs it. The two bindings implement it: Extism host
 * functions in wasm (binding/wasm.ts), stdio frames in a Node process (binding/process.ts).
 */

/** The runtime's side of the guest. */
export interface GuestHost {
  /**
   * Send one JSON-RPC notification to the host (progress, log, a streamed artifact). False when
   * it could not reach the host itself (a plain Extism host, without the MEP host channel).
   */
  notify(message: object): boolean;
  /**
   * Send one streamed artifact of request `requestId` as raw bytes beside a small envelope (the
   * wasm host channel's `mep_artifact`), sparing its content being quoted into a notification.
   * False when the host has no such channel: send the morphir.backend.artifact notification
   * instead. Absent where there is none (the process binding).
   */
  artifact?(requestId: string | number, artifact: { path: string; content: string; binary: boolean }): boolean;
  /** Send one JSON-RPC request to the host and get its response envelope. */
  request(message: { id: string | number; method: string; params: unknown }): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
  /**
   * True when the host asked the running call to stop (deadline or cancel), where it can say so.
   * Called on every read of `ctx.cancelled`: a process binding takes what arrived on stdin
   * meanwhile, so a `$/cancelRequest` marks its request before this returns.
   */
  interrupted(): boolean;
  /** The host sent morphir.exit: release everything (a process ends; wasm does nothing). */
  exit(code: number): void;
}
