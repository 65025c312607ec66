/**
 * The two places a zod failure becomes a MepError: params an extension (or the guest dispatcher)
 * received, and results the host received.
 *
 * MEP 0.1, Errors: invalid parameters use JSON-RPC -32602. A malformed result is the peer
 * breaking the protocol, which the host reports locally (ERR_PROTOCOL), never on the wire.
 */
import type * as z from 'zod';
import { ErrorCode, LocalErrorCode, MepError, type MepErrorCode } from './errors.ts';

/** One schema failure, JSON-safe: where (`path`) and what (`message`, zod's `code`). */
export interface DecodeIssue {
  /** The member path inside the decoded value; empty for the value itself. */
  path: (string | number)[];
  /** What is wrong at that path. */
  message: string;
  /** zod's issue code, e.g. `invalid_type`, `custom`. */
  code: string;
}

/** `data` of a MepError raised by {@link decodeParams} or {@link decodeResult}. */
export interface DecodeErrorData {
  issues: DecodeIssue[];
}

/** Converts zod issues to {@link DecodeIssue}s (symbols in paths become strings). */
export function toDecodeIssues(error: z.ZodError): DecodeIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: issue.message,
    code: issue.code,
  }));
}

function formatIssue(issue: DecodeIssue): string {
  return issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`;
}

function decode<S extends z.ZodType>(schema: S, value: unknown, what: string, code: MepErrorCode, kind: string, advice: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toDecodeIssues(parsed.error);
  const shown = issues.slice(0, 3).map(formatIssue).join('; ');
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  const data: DecodeErrorData = { issues };
  return fail(new MepError(code, `Invalid ${kind} for ${what}: ${shown}${more}. ${advice}`, { data, cause: parsed.error }));
}

function fail(error: MepError): never {
  throw error;
}

/**
 * Parses received params or throws MepError(-32602 InvalidParams) naming `what`, with the zod
 * issues in `data.issues`.
 *
 * @example
 * const params = decodeParams(GenerateParams, message.params, 'morphir.backend.generate');
 */
export function decodeParams<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return decode(schema, value, what, ErrorCode.InvalidParams, 'params', 'Send params matching MEP 0.1.');
}

/**
 * Parses a result the peer returned or throws MepError(ERR_PROTOCOL) naming `what`, with the zod
 * issues in `data.issues`: a malformed result is a protocol error of the extension.
 *
 * @example
 * const result = decodeResult(GenerateResult, response.result, `morphir.backend.generate from ${id}`);
 */
export function decodeResult<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  return decode(schema, value, what, LocalErrorCode.Protocol, 'result', 'The extension broke MEP 0.1; report it to its author.');
}
