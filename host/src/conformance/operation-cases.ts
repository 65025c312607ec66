/**
 * Conformance cases for operations, diagnostics, cancellation and progress (MEP 0.1, Capability
 * methods, Backend generation, Frontend compilation, Cancellation and progress; Conformance
 * items 4 and 6).
 */
import { validateArtifacts } from '../artifacts/validate.ts';
import { ErrorCode, isMepError } from '../protocol/errors.ts';
import { CompileResult, GenerateResult, Method, ProgressParams, decodeResult } from '../protocol/index.ts';
import type { Capabilities } from '../protocol/index.ts';
import type { ConformanceCase } from './case.ts';
import { conformanceFixtures, expect } from './context.ts';
import businessTerms from '../../../fixtures/mep/ir/business-terms.json' with { type: 'json' };

const needsBackend = (caps: Capabilities | undefined) => (caps?.backend?.generate ? undefined : 'the extension advertises no backend.generate');
const needsFrontend = (caps: Capabilities | undefined) => (caps?.frontend?.compile ? undefined : 'the extension advertises no frontend.compile');

function irFor(caps: Capabilities | undefined): unknown {
  const versions = caps?.backend?.irVersions ?? [];
  return versions.includes('3') ? businessTerms : { ...businessTerms, formatVersion: Number(versions[0] ?? 3) };
}

/** Compile params with the run's options over the fixture's own. */
function withOptions<T extends { options?: Record<string, unknown> }>(params: T, options: Record<string, unknown>): T {
  return { ...params, options: { ...params.options, ...options } };
}

/** Operation cases. */
export const operationCases: ConformanceCase[] = [
  {
    name: 'unknown methods are refused with -32601',
    category: 'protocol errors',
    async run(ctx) {
      await ctx.initialize();
      await ctx.expectError(ctx.request('morphir.unknown.method', {}), ErrorCode.MethodNotFound, 'morphir.unknown.method');
    },
  },
  {
    name: 'capabilities that were not advertised are refused',
    category: 'protocol errors',
    async run(ctx) {
      await ctx.initialize();
      const caps = ctx.capabilities ?? {};
      const probes: [string, unknown][] = [];
      if (!caps.frontend?.compile) probes.push([Method.FrontendCompile, conformanceFixtures.compile]);
      if (!caps.backend?.generate) probes.push([Method.BackendGenerate, { ir: businessTerms, target: 'conformance', options: {} }]);
      if (!caps.validator) probes.push([Method.ValidatorValidate, { ir: businessTerms, options: {} }]);
      if (!caps.transform) probes.push([Method.TransformTransform, { ir: businessTerms, options: {} }]);
      for (const [method, params] of probes) {
        try {
          await ctx.request(method, params);
        } catch (error) {
          const ok = isMepError(error) && (error.code === ErrorCode.MethodNotFound || error.code === ErrorCode.CapabilityUnavailable);
          expect(ok, `${method} (not advertised) failed with ${isMepError(error) ? error.code : String(error)}, expected -32601 or -32013`);
          continue;
        }
        expect(false, `${method} was not advertised but the extension answered it`);
      }
    },
  },
  {
    name: 'generate returns artifacts with safe relative paths',
    category: 'generate',
    skip: needsBackend,
    async run(ctx) {
      const init = await ctx.initialize();
      for (const target of init.capabilities.backend?.targets ?? []) {
        const raw = await ctx.request(Method.BackendGenerate, { ir: irFor(init.capabilities), target, options: ctx.options }, `generate-${target}`);
        const result = decodeResult(GenerateResult, raw, `the generate result for target ${target}`) as GenerateResult;
        expect(result.success || result.diagnostics.length > 0, `generate for ${target} failed without diagnostics`);
        validateArtifacts(init.extension.id, result.artifacts);
      }
    },
  },
  {
    name: 'generate with invalid parameters is refused with -32602',
    category: 'protocol errors',
    skip: needsBackend,
    async run(ctx) {
      await ctx.initialize();
      await ctx.expectError(ctx.request(Method.BackendGenerate, { ir: businessTerms, options: {} }), ErrorCode.InvalidParams, 'generate without target');
    },
  },
  {
    name: 'invalid IR is a result with diagnostics, not a protocol error',
    category: 'diagnostics',
    skip: needsBackend,
    async run(ctx) {
      const init = await ctx.initialize();
      const target = init.capabilities.backend?.targets[0] as string;
      const raw = await ctx.request(Method.BackendGenerate, { ir: conformanceFixtures.invalidIr, target, options: ctx.options });
      const result = decodeResult(GenerateResult, raw, 'the generate result for invalid IR') as GenerateResult;
      expect(!result.success, 'generate from invalid IR reported success');
      expect(result.diagnostics.some((d) => d.severity === 'error'), 'generate from invalid IR returned no error diagnostic');
    },
  },
  {
    name: 'compile returns Morphir IR or diagnostics',
    category: 'compile',
    skip: needsFrontend,
    async run(ctx) {
      await ctx.initialize();
      const raw = await ctx.request(Method.FrontendCompile, withOptions(conformanceFixtures.compile, ctx.options), 'compile-1');
      const result = decodeResult(CompileResult, raw, 'the compile result') as CompileResult;
      expect(result.success || result.diagnostics.length > 0, 'compile failed without diagnostics');
    },
  },
  {
    name: 'source errors are diagnostics with zero-based ranges',
    category: 'diagnostics',
    skip: needsFrontend,
    async run(ctx) {
      await ctx.initialize();
      const raw = await ctx.request(Method.FrontendCompile, withOptions(conformanceFixtures.compileBroken, ctx.options), 'compile-broken');
      const result = decodeResult(CompileResult, raw, 'the compile result for broken source') as CompileResult;
      expect(!result.success, 'broken source compiled successfully');
      expect(result.diagnostics.length > 0, 'broken source produced no diagnostics');
    },
  },
  {
    name: 'cancelling an unknown request is harmless',
    category: 'cancellation',
    async run(ctx) {
      await ctx.initialize();
      ctx.peer.notify(Method.CancelRequest, { id: 'no-such-request' });
      await ctx.request(Method.Ping, {});
    },
  },
  {
    name: 'progress notifications are well formed and name an active request',
    category: 'cancellation',
    skip: needsBackend,
    async run(ctx) {
      const init = await ctx.initialize();
      const target = init.capabilities.backend?.targets[0] as string;
      await ctx.request(Method.BackendGenerate, { ir: irFor(init.capabilities), target, options: ctx.options }, 'progress-1');
      for (const message of ctx.unsolicited) {
        if (message.method !== Method.Progress) continue;
        const progress = decodeResult(ProgressParams, message.params, 'a morphir.progress notification') as ProgressParams;
        expect(progress.requestId === 'progress-1', `progress names request ${JSON.stringify(progress.requestId)}, expected "progress-1"`);
      }
    },
  },
];
