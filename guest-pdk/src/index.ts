/**
 * The mep-runtime guest PDK: write an MEP 0.1 extension once in TypeScript; `mep build` runs it
 * sandboxed in wasm or as a process, unchanged.
 */
export { defineExtension, isExtension } from './define-extension.ts';
export type { Extension } from './define-extension.ts';
export type { BackendDefinition, ExtensionDefinition, FrontendDefinition, TransformDefinition, ValidatorDefinition } from './definition.ts';
export type { AuthorDiagnostic, AuthorPosition, CompileAnswer, GenerateAnswer, TransformAnswer, ValidateAnswer } from './answers.ts';
export type { HandlerContext } from './context.ts';
export { createDispatcher } from './dispatcher.ts';
export type { Dispatcher } from './dispatcher.ts';
export type { GuestHost } from './guest-host.ts';
export { binaryArtifact, checkRelativePath, diagnostic, textArtifact, toBase64 } from './results.ts';
export type { DiagnosticAt } from './results.ts';
export { ErrorCode, MepError } from '../../host/src/protocol/errors.ts';
export type { Artifact, Diagnostic, GenerateParams, GenerateResult, NormalizedCompileParams, CompileResult, ValidateParams, ValidateResult, TransformParams, TransformResult } from '../../host/src/protocol/index.ts';
