/**
 * `defineExtension()`: the one place an author describes an extension. The initialize result,
 * `morphir.extension.capabilities`, `morphir.extension.describe` and `morphir_extension_info` are
 * all derived from this definition, so they always agree (MEP 0.1, When a session agrees with a
 * claim set).
 */
import { CLAIMS_VERSION, PROTOCOL_VERSIONS } from '../../host/src/protocol/index.ts';
import type {
  Artifact,
  Capabilities,
  ClaimSet,
  CompileResult,
  ExtensionIdentity,
  FrontendLanguage,
  GenerateParams,
  NormalizedCompileParams,
  TransformParams,
  ValidateParams,
} from '../../host/src/protocol/index.ts';
import type { GenerateContext, HandlerContext } from './context.ts';

/** A handler may answer synchronously or with a promise. */
type MaybePromise<T> = T | Promise<T>;

/** A zero-based position (MEP 0.1: lines and characters are zero-based). */
export type AuthorPosition = { line: number; character: number };

/**
 * A diagnostic as handlers return it: the MEP 0.1 fields, without the open index signature of
 * the wire schema (the dispatcher validates the wire shape before sending).
 */
export type AuthorDiagnostic = {
  severity: 'error' | 'warning' | 'info' | 'hint';
  code?: string;
  message: string;
  location?: { uri: string; range: { start: AuthorPosition; end: AuthorPosition } };
  related?: unknown[];
  data?: unknown;
};

/**
 * What a generate handler returns; `success` defaults to "no error diagnostic". `artifacts`
 * (default none) come after any the handler emitted with `ctx.emit`.
 */
export interface GenerateAnswer {
  artifacts?: Artifact[];
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

/** What a compile handler returns; `success` defaults to "no error diagnostic". */
export interface CompileAnswer {
  irVersion: string;
  ir: Record<string, unknown> | null;
  modules?: string[];
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
  moduleResults?: CompileResult['moduleResults'];
  contextDigest?: string;
}

/** What a validate handler returns; `success` defaults to "no error diagnostic". */
export interface ValidateAnswer {
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

/** What a transform handler returns; `success` defaults to "no error diagnostic". */
export interface TransformAnswer {
  irVersion?: string;
  ir?: Record<string, unknown> | null;
  diagnostics?: AuthorDiagnostic[];
  success?: boolean;
}

/** A backend: Morphir IR → artifacts (`morphir.backend.generate`). */
export interface BackendDefinition {
  targets: string[];
  irVersions: string[];
  /**
   * `params` is the request's own object, checked against MEP 0.1. A backend that turns the IR
   * into a model of its own can set `params.ir = null` once it has read it: nothing else holds
   * the parsed document, so it is freed at once instead of staying alive, and rescanned by the
   * sandbox's garbage collector, for the rest of the call. `ctx.emit(artifact)` hands an artifact
   * over while the handler runs (see {@link GenerateContext}).
   */
  generate(params: GenerateParams, ctx: GenerateContext): MaybePromise<GenerateAnswer>;
}

/** A frontend: source documents → Morphir IR (`morphir.frontend.compile`). */
export interface FrontendDefinition {
  languages: FrontendLanguage[];
  irVersions: string[];
  incremental?: boolean;
  multiDocument?: boolean;
  compile(params: NormalizedCompileParams, ctx: HandlerContext): MaybePromise<CompileAnswer>;
}

/** A validator: Morphir IR → diagnostics (`morphir.validator.validate`). */
export interface ValidatorDefinition {
  irVersions: string[];
  validate(params: ValidateParams, ctx: HandlerContext): MaybePromise<ValidateAnswer>;
}

/** A transform: Morphir IR → Morphir IR (`morphir.transform.transform`). */
export interface TransformDefinition {
  irVersions: string[];
  transform(params: TransformParams, ctx: HandlerContext): MaybePromise<TransformAnswer>;
}

/** Everything an author states about an extension. */
export interface ExtensionDefinition {
  /** Identity: stable id, display name, version. */
  info: ExtensionIdentity;
  /** `requires.host`: single SemVer comparators the host version must satisfy. */
  requiresHost?: string[];
  frontend?: FrontendDefinition;
  backend?: BackendDefinition;
  validator?: ValidatorDefinition;
  transform?: TransformDefinition;
}

/** A defined extension: the definition plus what is derived from it. Built by {@link defineExtension}. */
export interface Extension {
  readonly kind: 'mep-extension';
  readonly definition: ExtensionDefinition;
  /** The capabilities of every session (the PDK offers all it has). */
  readonly capabilities: Capabilities;
  /** The capability claim set (draft.2). */
  readonly claims: ClaimSet;
}

/** Derives the wire capabilities from a definition. */
function capabilitiesOf(def: ExtensionDefinition): Capabilities {
  const caps: Capabilities = { cancellation: true, progress: true };
  if (def.frontend) {
    const f = def.frontend;
    caps.frontend = { languages: f.languages, irVersions: f.irVersions, compile: true, incremental: f.incremental ?? false };
    // MEP 0.1: multiDocument "is absent from the wire when false".
    if (f.multiDocument) caps.frontend.multiDocument = true;
  }
  if (def.backend) caps.backend = { targets: def.backend.targets, irVersions: def.backend.irVersions, generate: true };
  if (def.validator) caps.validator = { irVersions: def.validator.irVersions, validate: true };
  if (def.transform) caps.transform = { irVersions: def.transform.irVersions, transform: true };
  return caps;
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new TypeError(`defineExtension: ${message}`);
}

/**
 * Define an MEP extension. Export the result as the entry module's default export; `mep build`
 * binds it to the wasm or process runtime.
 *
 * @example
 * export default defineExtension({
 *   info: { id: 'acme.hello', name: 'Hello backend', version: '1.0.0' },
 *   backend: { targets: ['hello'], irVersions: ['3'], generate: () => ({ artifacts: [textArtifact('hello.txt', 'hi\n')] }) },
 * });
 */
export function defineExtension(definition: ExtensionDefinition): Extension {
  const { info } = definition;
  check(typeof info?.id === 'string' && info.id.length > 0, 'info.id must be a non-empty string');
  check(typeof info.version === 'string' && info.version.length > 0, 'info.version must be a non-empty string');
  check(typeof info.name === 'string', 'info.name must be a string');
  const kinds = (['frontend', 'backend', 'validator', 'transform'] as const).filter((k) => definition[k] !== undefined);
  check(kinds.length > 0, 'define at least one of frontend, backend, validator or transform');
  if (definition.backend) check(definition.backend.targets.length > 0, 'backend.targets must name at least one target');
  const capabilities = capabilitiesOf(definition);
  const claims: ClaimSet = {
    claimsVersion: CLAIMS_VERSION,
    protocolVersions: [...PROTOCOL_VERSIONS],
    extension: { id: info.id, name: info.name, version: info.version, types: [...kinds] },
    capabilities,
  };
  if (definition.requiresHost && definition.requiresHost.length > 0) {
    claims.requires = { host: [...definition.requiresHost] };
    // MEP 0.1, Compatibility rules: an extension that needs a newer host lists it in critical.
    claims.critical = ['requires.host'];
  }
  return { kind: 'mep-extension', definition, capabilities, claims };
}

/** True for a value built by {@link defineExtension} (also across bundles). */
export function isExtension(value: unknown): value is Extension {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'mep-extension';
}
