/**
 * mep-runtime's public host API: sessions over process, wasm and in-memory transports, the MEP
 * 0.1 protocol model, artifact validation and writing, and the conformance suite.
 *
 * @example
 * const session = createSession({ transport: await openTransport(specFromPath('ext.wasm')) });
 * try { await session.start(); await session.generate({ ir, target: 'avro' }); }
 * finally { await session.close(); }
 */
export * from './protocol/index.ts';
export { createPeer } from './rpc/index.ts';
export type { Peer, PeerOptions, RequestOptions } from './rpc/index.ts';
export { createSession } from './session/session.ts';
export type { CallOptions, GenerateOptions, Session, SessionOptions } from './session/session.ts';
export type { OutputLimits } from './session/session.ts';
export { SessionState } from './session/state.ts';
export type { SessionStateValue } from './session/state.ts';
export { readClaimSet } from './session/read-claims.ts';
export type { ClaimReading, ClaimSource } from './session/read-claims.ts';
export { detectIrVersion } from './session/ir-version.ts';
export { HOST_INFO, HOST_VERSION } from './session/host-info.ts';
export type { Disposer, JsonRpcMessage, LogEntry, LogSink, Transport } from './transport/types.ts';
export { createMemoryTransportPair } from './transport/memory.ts';
export { createProcessTransport, endAllProcessGroups } from './transport/process.ts';
export { createWasmTransport, compileExtensionModule, DEFAULT_SOURCE_DATE_EPOCH, DEFAULT_WASM_LIMITS, guestAbi, hostTrampolineBytes } from './transport/wasm/index.ts';
export type { GuestAbi, WasmTransportOptions } from './transport/wasm/index.ts';
export type { WasmGrants, WasmLimits } from './transport/wasm/limits.ts';
export { createNodeWasmTransport, createNodeWasmWorkerSpawner } from './transport/wasm/node/worker.ts';
export { useBaselineWasmTier, useOptimizingWasmTier } from './transport/wasm/node/wasm-tier.ts';
export { openTransport, specFromPath } from './registry/launch.ts';
export type { LaunchSpec, OpenTransportOptions, RuntimeKind } from './registry/launch.ts';
export { withLimits } from './registry/launch-limits.ts';
export { processClockEnv, sourceDateEpochFrom, withGrants, type ClockRandomGrants } from './registry/launch-grants.ts';
export { compileProject, compileRequestForFiles, readMorphirJson, readMorphirProject, MorphirJson, ONE_FILE_PACKAGE } from './project/index.ts';
export type { CompileProjectOptions, MorphirProject, ProjectCompileOutcome, ReadProjectOptions } from './project/index.ts';
export { registryPaths } from './registry/paths.ts';
export type { RegistryPaths, Scope } from './registry/paths.ts';
export { ExtensionId, isExtensionId, parseExtensionId } from './registry/extension-id.ts';
export { installExtension } from './registry/install.ts';
export type { InstallOptions, InstallResult } from './registry/install.ts';
export { removeExtension } from './registry/remove.ts';
export type { RemoveResult } from './registry/remove.ts';
export { packExtension } from './registry/pack.ts';
export type { PackOptions, PackResult } from './registry/pack.ts';
export { DEFAULT_ARCHIVE_LIMITS } from './registry/archive/budget.ts';
export type { ArchiveLimits } from './registry/archive/budget.ts';
export { checkArtifactPath, createArtifactValidator, validateArtifacts } from './artifacts/validate.ts';
export type { ArtifactLimits, ArtifactValidator, ValidatedArtifacts, ValidatedFile } from './artifacts/validate.ts';
export { artifactPathKey } from './artifacts/path-set.ts';
export { publishArtifacts, recoverOutput, writeArtifacts } from './artifacts/write.ts';
export type { WriteReport } from './artifacts/write.ts';
export { openStagedOutput } from './artifacts/staged-output.ts';
export type { PublishStep, StagedOutput, StagedOutputOptions } from './artifacts/staged-output.ts';
export type { RecoveryOutcome } from './artifacts/publish-journal.ts';
export type { LocateOptions } from './artifacts/output-location.ts';
export { runConformance, conformanceCases, formatResultLine, formatSummary } from './conformance/index.ts';
export type { CaseResult, ConformanceOptions } from './conformance/index.ts';
