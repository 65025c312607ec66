/**
 * The params and result schema of every MEP 0.1 method, for table-driven decoding by the rpc
 * dispatcher, the guest PDK and the conformance fixtures.
 */
import type * as z from 'zod';
import { Capabilities } from './capabilities.ts';
import { ClaimSet, DescribeParams } from './claim-set.ts';
import { CompileParams } from './compile-params.ts';
import { CompileResult } from './compile-result.ts';
import { GenerateParams, GenerateResult } from './generate.ts';
import { ExtensionInfo, InitializeParams, InitializeResult } from './initialize.ts';
import { CapabilitiesParams, ExitParams, InfoParams, InitializedParams, PingParams, PingResult, ShutdownParams, ShutdownResult } from './lifecycle.ts';
import { Method, type MethodName } from './methods.ts';
import { ArtifactParams, CancelParams, LogParams, ProgressParams } from './notifications.ts';
import { SecretResolveParams, SecretResolveResult } from './secret.ts';
import { TransformParams, TransformResult } from './transform.ts';
import { ValidateParams, ValidateResult } from './validate.ts';

/** How one method travels: who sends it, whether it is answered, and its schemas. */
export interface MethodSchema {
  /** `request` is answered with a result or error; `notification` never is. */
  kind: 'request' | 'notification';
  /** Who sends it. */
  direction: 'host-to-extension' | 'extension-to-host' | 'both';
  /** Schema of `params`. */
  params: z.ZodType;
  /** Schema of `result`; absent for notifications. */
  result?: z.ZodType;
}

/**
 * Every method of {@link Method} with its schemas. The describe result is read with
 * `parseClaimSet` (draft.1 conversion, critical paths); {@link ClaimSet} is its draft.2 shape.
 */
export const MethodSchemas: { readonly [M in MethodName]: MethodSchema } = {
  [Method.Initialize]: { kind: 'request', direction: 'host-to-extension', params: InitializeParams, result: InitializeResult },
  [Method.Initialized]: { kind: 'notification', direction: 'host-to-extension', params: InitializedParams },
  [Method.Ping]: { kind: 'request', direction: 'host-to-extension', params: PingParams, result: PingResult },
  [Method.Describe]: { kind: 'request', direction: 'host-to-extension', params: DescribeParams, result: ClaimSet },
  [Method.Info]: { kind: 'request', direction: 'host-to-extension', params: InfoParams, result: ExtensionInfo },
  [Method.Capabilities]: { kind: 'request', direction: 'host-to-extension', params: CapabilitiesParams, result: Capabilities },
  [Method.Shutdown]: { kind: 'request', direction: 'host-to-extension', params: ShutdownParams, result: ShutdownResult },
  [Method.Exit]: { kind: 'notification', direction: 'host-to-extension', params: ExitParams },
  [Method.CancelRequest]: { kind: 'notification', direction: 'both', params: CancelParams },
  [Method.Progress]: { kind: 'notification', direction: 'extension-to-host', params: ProgressParams },
  [Method.Log]: { kind: 'notification', direction: 'extension-to-host', params: LogParams },
  [Method.FrontendCompile]: { kind: 'request', direction: 'host-to-extension', params: CompileParams, result: CompileResult },
  [Method.BackendGenerate]: { kind: 'request', direction: 'host-to-extension', params: GenerateParams, result: GenerateResult },
  [Method.ValidatorValidate]: { kind: 'request', direction: 'host-to-extension', params: ValidateParams, result: ValidateResult },
  [Method.TransformTransform]: { kind: 'request', direction: 'host-to-extension', params: TransformParams, result: TransformResult },
  [Method.SecretResolve]: { kind: 'request', direction: 'extension-to-host', params: SecretResolveParams, result: SecretResolveResult },
  [Method.BackendArtifact]: { kind: 'notification', direction: 'extension-to-host', params: ArtifactParams },
};
