/**
 * The extension registry (Node edge): package manifests, install from a directory, git or an
 * archive, the lock, discovery across the project and user scopes, verification before every
 * session, provider selection by claimed capability, and the host side of `secret.resolve`.
 */
export { ExtensionManifest, ManifestPermissions, MANIFEST_FILE, parseManifest, readManifest } from './manifest.ts';
export { ExtensionId, EXTENSION_ID_RULE, MAX_EXTENSION_ID_LENGTH, extensionIdProblem, isExtensionId, parseExtensionId } from './extension-id.ts';
export { parseSecretReference, isSecretReference } from './secret-reference.ts';
export type { SecretReference } from './secret-reference.ts';
export { packageDirOf, registryPaths, scopesOf } from './paths.ts';
export type { RegistryPaths, RegistryLocation, Scope, ScopePaths } from './paths.ts';
export { LockEntry, LockFile, lockEntryOf, readLock, writeLock, updateLock } from './lock.ts';
export { writeFileAtomic } from './atomic-write.ts';
export { sha256File, sha256Bytes, verifyArtifact } from './integrity.ts';
export type { ArtifactPin } from './integrity.ts';
export { hostPlatform, platformFileName, resolvePlatformArtifact } from './platform.ts';
export type { Platform, PlatformArtifact } from './platform.ts';
export { parseInstallSource } from './install-source.ts';
export type { InstallSource, ArchiveFormat } from './install-source.ts';
export { installExtension } from './install.ts';
export { packExtension } from './pack.ts';
export type { PackOptions, PackResult } from './pack.ts';
export { selectPackageFiles } from './package-files.ts';
export type { PackageFile, PackageSelection, PlatformChoice } from './package-files.ts';
export { SUMS_FILE, checkSums, formatSums, parseSums } from './sums.ts';
export type { SumLine, SummedFile } from './sums.ts';
export { DEFAULT_ARCHIVE_LIMITS } from './archive/budget.ts';
export type { ArchiveLimits } from './archive/budget.ts';
export type { InstallOptions, InstallResult } from './install.ts';
export { removeExtension } from './remove.ts';
export type { RemoveResult } from './remove.ts';
export { discoverExtensions, findInstalled } from './discover.ts';
export type { Discovery, DiscoveryProblem, InstalledExtension } from './discover.ts';
export { listExtensions, summarizeClaims } from './list.ts';
export type { ListedExtension, CapabilitySummary } from './list.ts';
export { verifyInstalled, claimsOf } from './prepare.ts';
export type { ClaimReadOptions } from './prepare.ts';
export { launchSpecOf, checkClaimsIdentity } from './package-launch.ts';
export { matchNeed, describeNeed } from './provider-need.ts';
export type { ProviderNeed, NeedMatch } from './provider-need.ts';
export { selectProvider } from './select.ts';
export type { SelectedProvider } from './select.ts';
export { MepConfig } from './config.ts';
export { approvedSecrets, secretApprovals } from './approvals.ts';
export type { SecretApprovals, UntrustedApprovals } from './approvals.ts';
export { listTrusted, trustProjectConfig, untrustProjectConfig } from './trust.ts';
export { createSecretResolver } from './secrets.ts';
export type { SecretEvent, SecretResolverOptions } from './secrets.ts';
export { createRedactor, REDACTED } from './redact.ts';
export type { Redactor } from './redact.ts';
export { openTransport, specFromPath } from './launch.ts';
export type { LaunchSpec, RuntimeKind } from './launch.ts';
