/**
 * The MEP 0.1 protocol model: method names, zod schemas with their inferred types, the error
 * table, decoding helpers, claim-set reading and the pure capability checks. No I/O, no `node:`
 * imports: this folder is also bundled into wasm guests.
 */
export { ErrorCode, LocalErrorCode, MepError, isMepError } from './errors.ts';
export type { WireErrorCode, LocalErrorCodeValue, MepErrorCode, MepErrorOptions } from './errors.ts';
export { DEFAULT_LIMITS, ExtensionLimits, LIMIT_KNOBS, formatLimit, raiseAdvice, raiseAllAdvice, suggestedLimit } from './limits.ts';
export type { LimitName } from './limits.ts';

export { Method, PROTOCOL_VERSIONS, CLAIMS_VERSION, STATEMENT_VERSION_DRAFT_1, PRE_INITIALIZE_METHODS } from './methods.ts';
export type { MethodName, ProtocolVersion } from './methods.ts';

export { RequestId, ResponseId, ResponseError, JsonRpcRequest, JsonRpcNotification, JsonRpcSuccess, JsonRpcFailure, ProtocolVersionMismatchData } from './envelope.ts';

export { decodeParams, decodeResult, toDecodeIssues } from './decode.ts';
export type { DecodeIssue, DecodeErrorData } from './decode.ts';

export { IrDistribution, OptionsBag } from './json-value.ts';

export { HostInfo, Workspace, HostCapabilities, Permissions, InitializeParams, ExtensionIdentity, ExtensionInfo, InitializeResult } from './initialize.ts';

export {
  CAPABILITY_KINDS,
  CapabilityKind,
  FrontendLanguage,
  FrontendCapability,
  BackendCapability,
  ValidatorCapability,
  TransformCapability,
  WorkspaceCapability,
  Capabilities,
  capabilityKindsOf,
} from './capabilities.ts';

export {
  EmptyParams,
  InitializedParams,
  PingParams,
  PingResult,
  InfoParams,
  CapabilitiesParams,
  ShutdownParams,
  ShutdownResult,
  ExitParams,
} from './lifecycle.ts';

export { ArtifactParams, CancelParams, ProgressKind, ProgressParams, LogLevel, LogParams } from './notifications.ts';
export { SecretResolveParams, SecretResolveResult } from './secret.ts';

export { Position, Range, Location, DiagnosticSeverity, RelatedInformation, Diagnostic } from './diagnostics.ts';
export { Artifact } from './artifact.ts';

export {
  SourceDocument,
  CompileSources,
  CompilePackage,
  CompileDependency,
  CompileOptions,
  BaselineModule,
  CompileBaseline,
  CompileParams,
  NormalizedCompileParams,
  normalizeCompileParams,
} from './compile-params.ts';
export { ModuleStatus, ModuleResult, CompileResult } from './compile-result.ts';
export { sourcePaths } from './source-paths.ts';
export type { SourcePath } from './source-paths.ts';
export { GenerateParams, GenerateResult } from './generate.ts';
export { ValidateParams, ValidateResult } from './validate.ts';
export { TransformParams, TransformResult } from './transform.ts';

export { DescribeParams, ClaimRequirements, ClaimSet, HOST_COMPARATOR, UNDERSTOOD_CRITICAL_PATHS, parseClaimSet, claimSetFromSession } from './claim-set.ts';
export { checkAgreement } from './agreement.ts';
export { jsonEqual } from './json-equal.ts';
export type { AgreementResult } from './agreement.ts';
export { checkHostRequirement } from './host-requirement.ts';
export type { HostRequirementResult } from './host-requirement.ts';

export { MethodSchemas } from './method-schemas.ts';
export type { MethodSchema } from './method-schemas.ts';
export { JsonText, JsonTextError } from './json-text.ts';
export type { WithIrText } from './json-text.ts';
