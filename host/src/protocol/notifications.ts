/**
 * The notifications that accompany an active request: cancellation, progress and log entries.
 *
 * MEP 0.1, Cancellation and progress: `$/cancelRequest` is LSP's notification; an extension that
 * advertises `progress` may send morphir.progress with `kind` begin, report or end and an optional
 * percentage from 0 through 100.
 */
import * as z from 'zod';
import { Artifact } from './artifact.ts';
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

/**
 * Params of morphir.backend.artifact, an extension of MEP 0.1 (streamed artifacts): one artifact
 * of the active generate request `requestId`, handed over while the backend runs instead of in
 * its result, so neither side holds every artifact at once and each is a message of its own
 * (checked against the message limit on its own). The request's result then carries the
 * diagnostics and `streamedArtifacts`, the number sent; the host publishes the artifacts, all or
 * none, only once that result says `success`. A host announces it in initialize
 * (`capabilities.artifactStream: true`); to any other host the extension sends none and returns
 * every artifact in its result, as MEP 0.1 says.
 */
export const ArtifactParams = z.looseObject({
  requestId: RequestId,
  artifact: Artifact,
});
/** Params of morphir.backend.artifact. */
export type ArtifactParams = z.infer<typeof ArtifactParams>;
