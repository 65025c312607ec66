/**
 * The result of morphir.frontend.compile, including the incremental per-module results.
 *
 * MEP 0.1, Successful response and Compilation failure: a source-language failure is a normal
 * result with `success: false` and diagnostics. The top-level `ir` is the merged distribution of
 * compiled and unchanged modules, present even on failure (the reference frontend may send `null`).
 */
import * as z from 'zod';
import { Diagnostic } from './diagnostics.ts';
import { IrDistribution } from './json-value.ts';

/** The four per-module outcomes of an incremental compile. */
export const ModuleStatus = z.enum(['compiled', 'unchanged', 'failed', 'blocked']);
/** One of `compiled`, `unchanged`, `failed`, `blocked`. */
export type ModuleStatus = z.infer<typeof ModuleStatus>;

/**
 * One module the request touched (only from a frontend advertising `incremental: true`); `ir` is
 * present only for `compiled`.
 */
export const ModuleResult = z.looseObject({
  name: z.string(),
  uri: z.string().optional(),
  status: ModuleStatus,
  sourceDigest: z.string().optional(),
  interfaceDigest: z.string().optional(),
  dependsOn: z.array(z.string()).optional(),
  ir: z.unknown().optional(),
  diagnostics: z.array(Diagnostic).optional(),
});
/** One module's incremental outcome. */
export type ModuleResult = z.infer<typeof ModuleResult>;

/**
 * Result of morphir.frontend.compile. When `success` is true, `irVersion` is non-empty and `ir` is
 * a JSON object; `modules` lists compiled and unchanged modules only.
 */
export const CompileResult = z
  .looseObject({
    success: z.boolean(),
    irVersion: z.string().optional(),
    ir: z.union([IrDistribution, z.null()]).optional(),
    diagnostics: z.array(Diagnostic),
    modules: z.array(z.string()),
    moduleResults: z.array(ModuleResult).optional(),
    contextDigest: z.string().optional(),
  })
  .superRefine((result, ctx) => {
    if (!result.success) return;
    if (result.irVersion === undefined || result.irVersion.trim() === '')
      ctx.addIssue({ code: 'custom', message: 'a successful compile states a non-empty irVersion', path: ['irVersion'] });
    if (result.ir === undefined || result.ir === null)
      ctx.addIssue({ code: 'custom', message: 'a successful compile carries the IR as a JSON object', path: ['ir'] });
  });
/** Result of morphir.frontend.compile. */
export type CompileResult = z.infer<typeof CompileResult>;
