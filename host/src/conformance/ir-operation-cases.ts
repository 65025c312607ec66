/**
 * Conformance cases for validators and transforms (MEP 0.1, Capability methods: validate and
 * transform take a Morphir IR and answer with diagnostics, or IR and diagnostics; domain failures
 * are results, malformed params -32602).
 */
import { ErrorCode } from '../protocol/errors.ts';
import { Method, TransformResult, ValidateResult, decodeResult } from '../protocol/index.ts';
import type { Capabilities } from '../protocol/index.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, expect, type CaseContext } from './context.ts';
import businessTerms from '../../../fixtures/mep/ir/business-terms.json' with { type: 'json' };

const needsValidator = (caps: Capabilities | undefined) => (caps?.validator?.validate ? undefined : 'the extension advertises no validator.validate');
const needsTransform = (caps: Capabilities | undefined) => (caps?.transform?.transform ? undefined : 'the extension advertises no transform.transform');

/** The sample IR in the first version `versions` lists (business terms, formatVersion 3, relabelled otherwise). */
function irFor(versions: readonly string[] | undefined): { ir: unknown; irVersion: string } {
  const version = versions?.includes('3') ? '3' : (versions?.[0] ?? '3');
  return { ir: version === '3' ? businessTerms : { ...businessTerms, formatVersion: Number(version) }, irVersion: version };
}

/** A failed result must say why: at least one error diagnostic. */
function explained(result: { success: boolean; diagnostics: { severity: string }[] }, what: string): void {
  expect(result.success || result.diagnostics.some((d) => d.severity === 'error'), `${what} failed without an error diagnostic`);
}

async function validate(ctx: CaseContext, ir: unknown, irVersion: string, id: string): Promise<ValidateResult> {
  return decodeResult(ValidateResult, await ctx.request(Method.ValidatorValidate, { ir, irVersion, options: ctx.options }, id), `the validate result (${id})`) as ValidateResult;
}

async function transform(ctx: CaseContext, ir: unknown, irVersion: string, id: string): Promise<TransformResult> {
  return decodeResult(TransformResult, await ctx.request(Method.TransformTransform, { ir, irVersion, options: ctx.options }, id), `the transform result (${id})`) as TransformResult;
}

/** Validator and transform cases. */
export const irOperationCases: ConformanceCase[] = [
  {
    name: 'validate returns diagnostics, and success false only with an error among them',
    category: 'validate',
    skip: needsValidator,
    async run(ctx) {
      const init = await ctx.initialize();
      const { ir, irVersion } = irFor(init.capabilities.validator?.irVersions);
      const result = await validate(ctx, ir, irVersion, 'validate-1');
      explained(result, 'validate');
      expect(!result.diagnostics.some((d) => d.severity === 'error') || !result.success, 'validate reported success with an error diagnostic');
    },
  },
  {
    name: 'validate of invalid IR is a result with an error diagnostic, not a protocol error',
    category: 'diagnostics',
    skip: needsValidator,
    async run(ctx) {
      const init = await ctx.initialize();
      const result = await validate(ctx, conformanceFixtures.invalidIr, irFor(init.capabilities.validator?.irVersions).irVersion, 'validate-invalid');
      expect(!result.success, 'validate of invalid IR reported success');
      explained(result, 'validate of invalid IR');
    },
  },
  {
    name: 'transform returns Morphir IR with its version, or diagnostics',
    category: 'transform',
    skip: needsTransform,
    async run(ctx) {
      const init = await ctx.initialize();
      const { ir, irVersion } = irFor(init.capabilities.transform?.irVersions);
      const result = await transform(ctx, ir, irVersion, 'transform-1');
      explained(result, 'transform');
      if (result.success) {
        expect(typeof result.ir === 'object' && result.ir !== null, 'a successful transform returned no IR');
        expect(typeof result.irVersion === 'string' && result.irVersion !== '', 'a successful transform did not say its IR version');
      }
    },
  },
  {
    name: 'transform of invalid IR is a result with an error diagnostic, not a protocol error',
    category: 'diagnostics',
    skip: needsTransform,
    async run(ctx) {
      const init = await ctx.initialize();
      const result = await transform(ctx, conformanceFixtures.invalidIr, irFor(init.capabilities.transform?.irVersions).irVersion, 'transform-invalid');
      expect(!result.success, 'transform of invalid IR reported success');
      explained(result, 'transform of invalid IR');
    },
  },
  {
    name: 'validate and transform without an IR are refused with -32602',
    category: 'protocol errors',
    skip: (caps) => (caps?.validator?.validate || caps?.transform?.transform ? undefined : 'the extension advertises neither validator.validate nor transform.transform'),
    async run(ctx) {
      const init = await ctx.initialize();
      if (init.capabilities.validator?.validate) await ctx.expectError(ctx.request(Method.ValidatorValidate, { options: ctx.options }), ErrorCode.InvalidParams, 'validate without ir');
      if (init.capabilities.transform?.transform) await ctx.expectError(ctx.request(Method.TransformTransform, { options: ctx.options }), ErrorCode.InvalidParams, 'transform without ir');
    },
  },
];
