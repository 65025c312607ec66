/**
 * morphir.transform.transform: Morphir IR and transform options in, Morphir IR and diagnostics out.
 *
 * MEP 0.1, Capability methods. The shape follows compile and generate: `success`, the resulting
 * `ir` with its `irVersion` (both required on success), and `diagnostics`.
 */
import * as z from 'zod';
import { Diagnostic } from './diagnostics.ts';
import { IrDistribution, OptionsBag } from './json-value.ts';

/** Params of morphir.transform.transform. */
export const TransformParams = z.looseObject({
  ir: IrDistribution,
  irVersion: z.string().optional(),
  options: OptionsBag.optional(),
});
/** Params of morphir.transform.transform. */
export type TransformParams = z.infer<typeof TransformParams>;

/** Result of morphir.transform.transform; on success `ir` is a JSON object and `irVersion` non-empty. */
export const TransformResult = z
  .looseObject({
    success: z.boolean(),
    irVersion: z.string().optional(),
    ir: z.union([IrDistribution, z.null()]).optional(),
    diagnostics: z.array(Diagnostic),
  })
  .superRefine((result, ctx) => {
    if (!result.success) return;
    if (result.irVersion === undefined || result.irVersion.trim() === '')
      ctx.addIssue({ code: 'custom', message: 'a successful transform states a non-empty irVersion', path: ['irVersion'] });
    if (result.ir === undefined || result.ir === null)
      ctx.addIssue({ code: 'custom', message: 'a successful transform carries the IR as a JSON object', path: ['ir'] });
  });
/** Result of morphir.transform.transform. */
export type TransformResult = z.infer<typeof TransformResult>;
