/**
 * Params of morphir.frontend.compile, in both envelopes, and their normalization.
 *
 * MEP 0.1, Frontend compilation, Request: documents arrive either in the current envelope
 * `sources: { root?, documents }` or in the legacy one (top-level `documents`, root in
 * `options.sourceRootUri`). They are alternatives: a request carrying both is refused, because
 * each names its own source root and two roots have no honest answer.
 */
import * as z from 'zod';
import { ErrorCode, MepError } from './errors.ts';
import { IrDistribution, NonEmptyString } from './json-value.ts';
import { decodeParams } from './decode.ts';

/** A source document sent by value; `uri` is an identity, never a readable path. */
export const SourceDocument = z.looseObject({
  uri: NonEmptyString,
  languageId: z.string(),
  version: z.int().min(0),
  text: z.string(),
});
/** A source document sent by value. */
export type SourceDocument = z.infer<typeof SourceDocument>;

/** The current source envelope: the root travels with the documents whose identities depend on it. */
export const CompileSources = z.looseObject({
  root: z.string().optional(),
  documents: z.array(SourceDocument),
});
/** The current source envelope. */
export type CompileSources = z.infer<typeof CompileSources>;

/** Language-neutral package context; `exposedModules` absent = all public, `[]` = all private. */
export const CompilePackage = z.looseObject({
  name: z.string(),
  exposedModules: z.array(z.string()).optional(),
});
/** Language-neutral package context. */
export type CompilePackage = z.infer<typeof CompilePackage>;

/** An inline dependency: a Morphir IR distribution of another package. */
export const CompileDependency = z.looseObject({
  packageName: z.string(),
  irVersion: z.string(),
  distribution: IrDistribution,
});
/** An inline dependency. */
export type CompileDependency = z.infer<typeof CompileDependency>;

/** Compile options; `sourceRootUri` belongs to the legacy envelope only. */
export const CompileOptions = z.looseObject({
  typesOnly: z.boolean().optional(),
  irVersion: z.string().optional(),
  sourceRootUri: z.string().optional(),
});
/** Compile options. */
export type CompileOptions = z.infer<typeof CompileOptions>;

/** One module a host still trusts from an earlier incremental compile. */
export const BaselineModule = z.looseObject({
  name: z.string(),
  uri: z.string().optional(),
  sourceDigest: z.string().optional(),
  interfaceDigest: z.string().optional(),
  dependsOn: z.array(z.string()).optional(),
  ir: z.unknown().optional(),
});
/** One baseline module. */
export type BaselineModule = z.infer<typeof BaselineModule>;

/**
 * What an earlier compile returned, sent back by the host; only to a frontend advertising
 * `incremental: true`. `contextDigest` is echoed unchanged, never computed by the host.
 */
export const CompileBaseline = z.looseObject({
  modules: z.array(BaselineModule),
  contextDigest: z.string().optional(),
});
/** The incremental baseline. */
export type CompileBaseline = z.infer<typeof CompileBaseline>;

const CompileParamsBase = z.looseObject({
  languageId: z.string(),
  package: CompilePackage,
  dependencies: z.array(CompileDependency).optional(),
  options: CompileOptions.optional(),
  baseline: CompileBaseline.optional(),
});

/** Explains why a params object does not state exactly one envelope, or undefined when it does. */
function envelopeProblem(params: { sources?: unknown; documents?: unknown; options?: { sourceRootUri?: unknown } }): string | undefined {
  const hasSources = params.sources !== undefined;
  const hasDocuments = params.documents !== undefined;
  if (hasSources && hasDocuments) return 'ambiguous envelope: both `sources` and legacy top-level `documents` are present; send exactly one';
  if (hasSources && params.options?.sourceRootUri !== undefined)
    return 'ambiguous envelope: `sources` is combined with legacy `options.sourceRootUri`; state the root once, in `sources.root`';
  if (!hasSources && !hasDocuments) return 'no source envelope: send `sources: { root?, documents }` (or the legacy top-level `documents`)';
  return undefined;
}

/**
 * Params of morphir.frontend.compile as received: exactly one of `sources` (current) or
 * top-level `documents` (legacy, root in `options.sourceRootUri`).
 */
export const CompileParams = CompileParamsBase.extend({
  sources: CompileSources.optional(),
  documents: z.array(SourceDocument).optional(),
}).superRefine((params, ctx) => {
  const problem = envelopeProblem(params);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, path: [] });
});
/** Params of morphir.frontend.compile as received. */
export type CompileParams = z.infer<typeof CompileParams>;

/** Compile params in the current envelope only: what an SDK-built frontend sees. */
export const NormalizedCompileParams = CompileParamsBase.extend({
  sources: CompileSources,
});
/** Compile params in the current envelope only. */
export type NormalizedCompileParams = z.infer<typeof NormalizedCompileParams>;

/**
 * Decodes compile params in either envelope and returns the current `sources` form (the legacy
 * root moves from `options.sourceRootUri` to `sources.root`). Throws MepError(-32602) when both
 * envelopes or neither are present, or when the params are malformed.
 *
 * @example
 * const { sources } = normalizeCompileParams(message.params);
 */
export function normalizeCompileParams(params: unknown): NormalizedCompileParams {
  if (typeof params === 'object' && params !== null && !Array.isArray(params)) {
    const problem = envelopeProblem(params as Parameters<typeof envelopeProblem>[0]);
    if (problem !== undefined) {
      throw new MepError(ErrorCode.InvalidParams, `Invalid params for morphir.frontend.compile: ${problem}.`, {
        data: { issues: [{ path: [], message: problem, code: 'custom' }] },
      });
    }
  }
  const decoded = decodeParams(CompileParams, params, 'morphir.frontend.compile');
  if (decoded.sources !== undefined) {
    const { documents: _legacy, ...rest } = decoded;
    return { ...rest, sources: decoded.sources };
  }
  const { documents, options, ...rest } = decoded;
  const { sourceRootUri, ...otherOptions } = options ?? {};
  const sources: CompileSources = sourceRootUri === undefined ? { documents: documents ?? [] } : { root: sourceRootUri, documents: documents ?? [] };
  const out: NormalizedCompileParams = { ...rest, sources };
  if (options !== undefined) out.options = otherOptions;
  return out;
}
