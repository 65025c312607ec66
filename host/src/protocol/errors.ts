/**
 * One error table for the wire (JSON-RPC 2.0 and MEP 0.1 codes) and for local failures that
 * never reach the wire, and the one error class that carries them.
 *
 * MEP 0.1, Errors: -32010..-32014 and -32800 are reserved server errors; parse errors, invalid
 * requests, unknown methods and invalid params use the standard JSON-RPC codes.
 */

/** JSON-RPC 2.0 and MEP 0.1 error codes, the only numeric codes that travel on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ExtensionFailure: -32010,
  ProtocolVersionMismatch: -32011,
  PermissionDenied: -32012,
  CapabilityUnavailable: -32013,
  NotInitialized: -32014,
  RequestCancelled: -32800,
} as const;

/** A numeric wire code from {@link ErrorCode}. */
export type WireErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Codes for failures detected by the host itself. They are strings so they can never be
 * confused with a code an extension sent.
 */
export const LocalErrorCode = {
  /** A frame or line on the extension's output is not a valid message (bad header, log line, too big). */
  Framing: 'ERR_FRAMING',
  /** The transport is closed or died; pending requests are rejected with this. */
  TransportClosed: 'ERR_TRANSPORT_CLOSED',
  /** The extension process exited or the wasm instance trapped. */
  ExtensionCrashed: 'ERR_EXTENSION_CRASHED',
  /** A request did not complete within its deadline. */
  Timeout: 'ERR_TIMEOUT',
  /** A response carried an id that matches no pending request, or a malformed envelope. */
  Protocol: 'ERR_PROTOCOL',
  /** A session method was called in a state that does not allow it. */
  SessionState: 'ERR_SESSION_STATE',
  /** The host refused before dispatch: the capability was not advertised. */
  CapabilityRefused: 'ERR_CAPABILITY_REFUSED',
  /** An initialize result or claim set failed an agreement or critical-member rule. */
  ClaimsMismatch: 'ERR_CLAIMS_MISMATCH',
  /** requires.host excludes this host's version. */
  HostVersion: 'ERR_HOST_VERSION',
  /** A resource limit was exceeded (memory, message size, output size). */
  Limit: 'ERR_LIMIT',
  /** A build step failed (type errors, syntax errors, toolchain missing). */
  Build: 'ERR_BUILD',
  /** Bad user input to a host or guest PDK API or the CLI (a missing file, a bad option, a malformed extension definition). */
  Usage: 'ERR_USAGE',
  /** An artifact path or content returned by an extension is unsafe or invalid. */
  Artifact: 'ERR_ARTIFACT',
  /** Installation, lock verification or provider selection failed. */
  Registry: 'ERR_REGISTRY',
  /** An extension served at a URL could not be reached (refused, DNS, TLS, reset). */
  Unreachable: 'ERR_UNREACHABLE',
  /** An extension served at a URL refused our credentials (HTTP 401/403). */
  Unauthorized: 'ERR_UNAUTHORIZED',
  /** A transcript could not record a message (the file cannot be written, or the message cannot be serialized). */
  Transcript: 'ERR_TRANSCRIPT',
} as const;

/** A local string code from {@link LocalErrorCode}. */
export type LocalErrorCodeValue = (typeof LocalErrorCode)[keyof typeof LocalErrorCode];

/** Any code a {@link MepError} can carry. */
export type MepErrorCode = WireErrorCode | LocalErrorCodeValue | number;

/** Options for {@link MepError}. */
export interface MepErrorOptions {
  /** Structured, machine-readable detail (for wire errors this is JSON-RPC `error.data`). */
  data?: unknown;
  /** The underlying error, kept for diagnosis. */
  cause?: unknown;
}

/**
 * The single error class of mep-runtime. Callers branch on `code`, never on the message.
 *
 * @example
 * try { await session.generate(request) }
 * catch (e) { if (isMepError(e) && e.code === ErrorCode.CapabilityUnavailable) … }
 */
export class MepError extends Error {
  override readonly name = 'MepError';
  readonly code: MepErrorCode;
  readonly data: unknown;

  constructor(code: MepErrorCode, message: string, options: MepErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.data = options.data;
  }

  /** True when the code is a numeric JSON-RPC/MEP code that may be sent on the wire. */
  get isWire(): boolean {
    return typeof this.code === 'number';
  }

  /** The JSON-RPC `error` object for this error (local codes map to InternalError). */
  toJSON(): { code: number; message: string; data?: unknown } {
    const code = typeof this.code === 'number' ? this.code : ErrorCode.InternalError;
    const out: { code: number; message: string; data?: unknown } = { code, message: this.message };
    if (this.data !== undefined) out.data = this.data;
    return out;
  }
}

/** Guard for {@link MepError}, also for instances that crossed a realm (worker, vm). */
export function isMepError(value: unknown): value is MepError {
  return value instanceof MepError || (typeof value === 'object' && value !== null && (value as { name?: unknown }).name === 'MepError' && 'code' in value);
}
