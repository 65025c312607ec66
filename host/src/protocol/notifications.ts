/**
 * The notifications that accompany an active request: cancellation, progress and log entries.
 *
 * MEP 0.1, Cancellation and progress: `$/cancelRequest` is LSP's notification; an extension that
 * advertises `progress` may send morphir.progress with `kind` begin, report or end and an optional
 * percentage from 0 through 100.
 */
import * as z from 'zod';
import { RequestId } from './envelope.ts';

/** Params of `$/cancelRequest`: the id of the request to cancel, with its original type. */
export const CancelParams = z.looseObject({
  id: RequestId,
});
/** Params of `$/cancelRequest`. */
export type CancelParams = z.infer<typeof CancelParams>;

/** The phase a progress notification reports. */
export const ProgressKind = z.enum(['begin', 'report', 'end']);
/** One of `begin`, `report`, `end`. */
export type ProgressKind = z.infer<typeof ProgressKind>;

/** Params of morphir.progress, about the active request `requestId`. */
export const ProgressParams = z.looseObject({
  requestId: RequestId,
  kind: ProgressKind,
  message: z.string().optional(),
  percentage: z.number().min(0).max(100).optional(),
});
/** Params of morphir.progress. */
export type ProgressParams = z.infer<typeof ProgressParams>;

/** The level of a log entry, the same four levels the host's log sink uses. */
export const LogLevel = z.enum(['debug', 'info', 'warn', 'error']);
/** One of `debug`, `info`, `warn`, `error`. */
export type LogLevel = z.infer<typeof LogLevel>;

/**
 * Params of morphir.log, the extension → host log notification (the wasm guest's stderr). The
 * host must not let a log entry carry a resolved secret into a transcript.
 */
export const LogParams = z.looseObject({
  level: LogLevel,
  message: z.string(),
});
/** Params of morphir.log. */
export type LogParams = z.infer<typeof LogParams>;
