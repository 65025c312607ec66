/**
 * Morphir IR and other extension-owned JSON values as they travel inside MEP messages.
 *
 * MEP 0.1, Successful response: `ir` is the distribution as a JSON value, never a JSON-encoded
 * string. The protocol model does not interpret IR; it only checks it is a JSON object, and keeps
 * every member unchanged.
 */
import * as z from 'zod';

/** A Morphir IR distribution: any JSON object, carried unchanged and not interpreted here. */
export const IrDistribution = z.looseObject({});
/** A Morphir IR distribution: any JSON object. */
export type IrDistribution = z.infer<typeof IrDistribution>;

/** An open options bag (`options` of compile, generate, validate, transform): any JSON object. */
export const OptionsBag = z.looseObject({});
/** An open options bag. */
export type OptionsBag = z.infer<typeof OptionsBag>;

/** A non-empty string, used for identifiers the spec requires to name something. */
export const NonEmptyString = z.string().min(1);
