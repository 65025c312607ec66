/**
 * Params and results of the lifecycle methods that carry no data of their own: initialized,
 * ping, extension.info, extension.capabilities, shutdown and exit.
 *
 * MEP 0.1, Core methods. JSON-RPC lets a request omit `params`; when present they must be an
 * object (an explicit `null` is refused with -32602, as the reference extensions do).
 */
import * as z from 'zod';

/** Params of a method that takes none: an object (members ignored) or no `params` member at all. */
export const EmptyParams = z.looseObject({}).optional();
/** Params of a method that takes none. */
export type EmptyParams = z.infer<typeof EmptyParams>;

/** Params of the morphir.initialized notification. */
export const InitializedParams = EmptyParams;
/** Params of morphir.initialized. */
export type InitializedParams = EmptyParams;

/** Params of morphir.ping. */
export const PingParams = EmptyParams;
/** Params of morphir.ping. */
export type PingParams = EmptyParams;

/** Result of morphir.ping: an object; the reference extensions send `{ "ok": true }`. */
export const PingResult = z.looseObject({
  ok: z.boolean().optional(),
});
/** Result of morphir.ping. */
export type PingResult = z.infer<typeof PingResult>;

/** Params of morphir.extension.info. */
export const InfoParams = EmptyParams;
/** Params of morphir.extension.info. */
export type InfoParams = EmptyParams;

/** Params of morphir.extension.capabilities (its result is {@link Capabilities}). */
export const CapabilitiesParams = EmptyParams;
/** Params of morphir.extension.capabilities. */
export type CapabilitiesParams = EmptyParams;

/** Params of morphir.shutdown. */
export const ShutdownParams = EmptyParams;
/** Params of morphir.shutdown. */
export type ShutdownParams = EmptyParams;

/** Result of morphir.shutdown: an object, `{}` in every reference extension. */
export const ShutdownResult = z.looseObject({});
/** Result of morphir.shutdown. */
export type ShutdownResult = z.infer<typeof ShutdownResult>;

/** Params of the morphir.exit notification (often sent without `params`). */
export const ExitParams = EmptyParams;
/** Params of morphir.exit. */
export type ExitParams = EmptyParams;
