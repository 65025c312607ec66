/**
 * morphir.validator.validate: Morphir IR and rule options in, diagnostics out.
 *
 * MEP 0.1, Capability methods. The spec gives only "Morphir IR and rule options" → "Diagnostics";
 * the shape follows compile and generate: `success` plus `diagnostics`, with an optional
 * `irVersion` the host may state so a validator reading several versions need not detect it.
 */
import * as z from 'zod';
import { Diagnostic } from './diagnostics.ts';
import { IrDistribution, OptionsBag } from './json-value.ts';

/** Params of morphir.validator.validate. */
export const ValidateParams = z.looseObject({
  ir: IrDistribution,
  irVersion: z.string().optional(),
  options: OptionsBag.optional(),
});
/** Params of morphir.validator.validate. */
export type ValidateParams = z.infer<typeof ValidateParams>;

/** Result of morphir.validator.validate: `success` is false when any rule failed. */
export const ValidateResult = z.looseObject({
  success: z.boolean(),
  diagnostics: z.array(Diagnostic),
});
/** Result of morphir.validator.validate. */
export type ValidateResult = z.infer<typeof ValidateResult>;
