/**
 * What an author passes to `defineExtension`: the zod schema, the definition types inferred from
 * it, and what each member expects, in words, for the refusal (check-definition.ts). The objects
 * are strict, because the PDK reads only the members it knows: an unknown one is a misspelling
 * (`irVersion` for `irVersions`) that would otherwise be dropped without a word and surface later
 * as a host refusing the initialize result. A frontend language is loose, as on the wire.
 *
 * The schema is built from as few zod instances as it can be (the wire's own where they fit, one
 * shared instance where members agree): every instance lives in each wasm guest's snapshot, at
 * about 2 KB apiece in the engine's heap.
 */
import * as z from 'zod';
import { ClaimRequirements, ExtensionIdentity, FrontendLanguage, HOST_COMPARATOR } from '../../host/src/protocol/index.ts';
import type { GenerateParams, NormalizedCompileParams, TransformParams, ValidateParams } from '../../host/src/protocol/index.ts';
import { NonEmptyString } from '../../host/src/protocol/json-value.ts';
import type { CompileAnswer, GenerateAnswer, TransformAnswer, ValidateAnswer } from './answers.ts';
import type { GenerateContext, HandlerContext } from './context.ts';

/** A handler may answer synchronously or with a promise. */
type MaybePromise<T> = T | Promise<T>;

type GenerateHandler = (params: GenerateParams, ctx: GenerateContext) => MaybePromise<GenerateAnswer>;
type CompileHandler = (params: NormalizedCompileParams, ctx: HandlerContext) => MaybePromise<CompileAnswer>;
type ValidateHandler = (params: ValidateParams, ctx: HandlerContext) => MaybePromise<ValidateAnswer>;
type TransformHandler = (params: TransformParams, ctx: HandlerContext) => MaybePromise<TransformAnswer>;

// One instance checks every handler; each member states its own signature for TypeScript.
const AnyHandler = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function');
const handler = <F>(): z.ZodType<F> => AnyHandler as unknown as z.ZodType<F>;
const NonEmptyList = z.array(NonEmptyString).min(1);
const Flag = z.boolean().optional();

/** A backend: Morphir IR → artifacts (`morphir.backend.generate`). */
export const BackendDefinition = z.strictObject({
  targets: NonEmptyList,
  irVersions: NonEmptyList,
  /**
   * `params` is the request's own object, checked against MEP 0.1. A backend that turns the IR
   * into a model of its own can set `params.ir = null` once it has read it: nothing else holds
   * the parsed document, so it is freed at once instead of staying alive, and rescanned by the
   * sandbox's garbage collector, for the rest of the call. `ctx.emit(artifact)` hands an artifact
   * over while the handler runs (see {@link GenerateContext}).
   */
  generate: handler<GenerateHandler>(),
});
/** A backend: Morphir IR → artifacts (`morphir.backend.generate`). */
export type BackendDefinition = z.infer<typeof BackendDefinition>;

/** A frontend: source documents → Morphir IR (`morphir.frontend.compile`). */
export const FrontendDefinition = z.strictObject({
  languages: z.array(FrontendLanguage).min(1),
  irVersions: NonEmptyList,
  incremental: Flag,
  multiDocument: Flag,
  compile: handler<CompileHandler>(),
});
/** A frontend: source documents → Morphir IR (`morphir.frontend.compile`). */
export type FrontendDefinition = z.infer<typeof FrontendDefinition>;

/** A validator: Morphir IR → diagnostics (`morphir.validator.validate`). */
export const ValidatorDefinition = z.strictObject({ irVersions: NonEmptyList, validate: handler<ValidateHandler>() });
/** A validator: Morphir IR → diagnostics (`morphir.validator.validate`). */
export type ValidatorDefinition = z.infer<typeof ValidatorDefinition>;

/** A transform: Morphir IR → Morphir IR (`morphir.transform.transform`). */
export const TransformDefinition = z.strictObject({ irVersions: NonEmptyList, transform: handler<TransformHandler>() });
/** A transform: Morphir IR → Morphir IR (`morphir.transform.transform`). */
export type TransformDefinition = z.infer<typeof TransformDefinition>;

/** The kinds a definition can implement, in the order their claims list them. */
export const DEFINITION_KINDS = ['frontend', 'backend', 'validator', 'transform'] as const;

/** Everything an author states about an extension: its identity and at least one kind. */
export const ExtensionDefinition = z
  .strictObject({
    /** Identity: stable id, display name, version. */
    info: z.strictObject(ExtensionIdentity.shape),
    /** `requires.host`: single SemVer comparators the host version must satisfy. */
    requiresHost: ClaimRequirements.shape.host,
    /**
     * `cancellation` of the capabilities: true only when every long-running handler checks
     * `ctx.cancelled` (or `ctx.throwIfCancelled()`) as it goes, so a cancelled request stops
     * working and answers -32800 (MEP 0.1, Cancellation). Absent or false: not advertised, and a
     * host ends the extension instead of waiting for it (`mep`'s Ctrl+C).
     */
    cancellation: Flag,
    frontend: FrontendDefinition.optional(),
    backend: BackendDefinition.optional(),
    validator: ValidatorDefinition.optional(),
    transform: TransformDefinition.optional(),
  })
  .superRefine(
    (definition, ctx) => {
      // The members may be anything here (this runs beside their own problems), so each is read with care.
      const comparators: unknown[] = Array.isArray(definition.requiresHost) ? definition.requiresHost : [];
      for (const [index, comparator] of comparators.entries()) {
        if (typeof comparator === 'string' && !HOST_COMPARATOR.test(comparator.trim())) ctx.addIssue({ code: 'custom', path: ['requiresHost', index], message: 'not a single comparator' });
      }
      if (!DEFINITION_KINDS.some((kind) => definition[kind] !== undefined)) {
        ctx.addIssue({ code: 'custom', path: [], message: 'defines none of frontend, backend, validator or transform; define at least one' });
      }
    },
    // Run beside the members' own problems, so that one refusal names them all.
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  );
/** Everything an author states about an extension. */
export type ExtensionDefinition = z.infer<typeof ExtensionDefinition>;

const IR_VERSIONS = "a list of the Morphir IR versions it reads, such as ['3']";
const IR_VERSION = "an IR version such as '3'";

/**
 * What each member expects, by its path with list positions as `[]` (`frontend.languages[].id`);
 * `''` is the definition itself. A refusal says "expected <this>, got <what was there>".
 */
export const DEFINITION_EXPECTATIONS: Readonly<Record<string, string>> = {
  '': 'an object { info, and at least one of frontend, backend, validator, transform }',
  info: "an object { id, name, version } such as { id: 'acme.hello', name: 'Hello', version: '1.0.0' }",
  'info.id': "a non-empty id such as 'acme.hello'",
  'info.name': "a display name such as 'Hello backend'",
  'info.version': "a non-empty version such as '1.0.0'",
  requiresHost: "a list of SemVer comparators such as ['>=0.1.0', '<0.2.0']",
  'requiresHost[]': "a single SemVer comparator (>=, >, <=, <, = and a full version) such as '>=0.1.0'",
  cancellation: 'true when every long-running handler checks ctx.cancelled as it goes, else false or absent',
  frontend: 'an object { languages, irVersions, compile }',
  'frontend.languages': "a list of the languages it compiles, such as [{ id: 'elm', fileExtensions: ['.elm'] }]",
  'frontend.languages[]': "a language { id, fileExtensions } such as { id: 'elm', fileExtensions: ['.elm'] }",
  'frontend.languages[].id': "a language id such as 'elm'",
  'frontend.languages[].fileExtensions': "a list of file extensions such as ['.elm']",
  'frontend.languages[].fileExtensions[]': "a file extension such as '.elm'",
  'frontend.incremental': 'true or false',
  'frontend.multiDocument': 'true or false',
  'frontend.compile': 'a function compile(params, ctx) returning { irVersion, ir }',
  backend: 'an object { targets, irVersions, generate }',
  'backend.targets': "a list of the target ids it generates, such as ['avro']",
  'backend.targets[]': "a target id such as 'avro'",
  'backend.generate': 'a function generate(params, ctx) returning { artifacts }',
  validator: 'an object { irVersions, validate }',
  'validator.validate': 'a function validate(params, ctx) returning { diagnostics }',
  transform: 'an object { irVersions, transform }',
  'transform.transform': 'a function transform(params, ctx) returning { ir }',
  ...Object.fromEntries(DEFINITION_KINDS.flatMap((kind) => [[`${kind}.irVersions`, IR_VERSIONS], [`${kind}.irVersions[]`, IR_VERSION]])),
};
