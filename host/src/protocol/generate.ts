/**
 * morphir.backend.generate: one IR distribution in, artifacts by value out.
 *
 * MEP 0.1, Backend generation: params are `{ ir, target, options }` and `target` is required
 * (changed from absent to required while 0.1 was pre-release). A backend advertising several
 * targets fails with a diagnostic for a target it does not advertise; it never falls back.
 * Input paths, output paths and IR-version detection are host concerns and never appear here.
 */
import * as z from 'zod';
import { Artifact } from './artifact.ts';
import { Diagnostic } from './diagnostics.ts';
import { IrDistribution, NonEmptyString, OptionsBag } from './json-value.ts';

/** Params of morphir.backend.generate: the IR, the host-selected target id, generation options. */
export const GenerateParams = z.looseObject({
  ir: IrDistribution,
  target: NonEmptyString,
  options: OptionsBag.optional(),
});
/** Params of morphir.backend.generate. */
export type GenerateParams = z.infer<typeof GenerateParams>;

/**
 * Result of morphir.backend.generate; a domain failure is `success: false` with diagnostics.
 * `streamedArtifacts` (streamed artifacts, an extension of MEP 0.1; see protocol/notifications.ts)
 * counts the artifacts sent as morphir.backend.artifact before it; `artifacts` then holds any
 * others, which come after them.
 */
export const GenerateResult = z.looseObject({
  success: z.boolean(),
  artifacts: z.array(Artifact),
  diagnostics: z.array(Diagnostic),
  streamedArtifacts: z.number().int().nonnegative().optional(),
});
/** Result of morphir.backend.generate. */
export type GenerateResult = z.infer<typeof GenerateResult>;
