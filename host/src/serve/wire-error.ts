/**
 * Turns a failure of a served call into an error a remote client can read. Wire errors (numeric
 * codes: the extension's own errors, invalid params, refusals) pass unchanged; local failures
 * (ERR_TIMEOUT, ERR_EXTENSION_CRASHED, …) keep their message and carry their string code in
 * `data.localCode`, so a client can branch on it instead of on text.
 */
import { ErrorCode, LocalErrorCode, MepError, isMepError, type LocalErrorCodeValue } from '../protocol/errors.ts';

/** The wire code a local failure is reported with. */
const WIRE_CODE_OF: Partial<Record<LocalErrorCodeValue, number>> = {
  [LocalErrorCode.Usage]: ErrorCode.InvalidParams,
  [LocalErrorCode.Registry]: ErrorCode.InvalidParams,
  [LocalErrorCode.CapabilityRefused]: ErrorCode.CapabilityUnavailable,
};

/**
 * A MepError with a numeric code for `error`: unchanged when it already has one; for a local
 * code, -32602 (usage), -32013 (capability refused) or -32010 (everything the extension or its
 * runtime did), with `data.localCode`. Anything else is returned as is (the dispatcher reports
 * it as -32603 without internals).
 */
export function toWireError(error: unknown): unknown {
  if (!isMepError(error) || typeof error.code === 'number') return error;
  const localCode = error.code;
  const code = WIRE_CODE_OF[localCode as LocalErrorCodeValue] ?? ErrorCode.ExtensionFailure;
  const detail = typeof error.data === 'object' && error.data !== null && !Array.isArray(error.data) ? error.data : error.data === undefined ? {} : { detail: error.data };
  return new MepError(code, error.message, { data: { ...detail, localCode }, cause: error });
}
