/**
 * The handshake: morphir.initialize params and result, and the identity an extension reports.
 *
 * MEP 0.1, Initialization: the host offers protocol versions, the extension selects one and returns
 * only the capabilities available in that session.
 */
import * as z from 'zod';
import { Capabilities } from './capabilities.ts';
import { NonEmptyString } from './json-value.ts';

/**
 * The host's identity. `kind` (e.g. `cli`) is optional for compatibility with earlier 0.1 hosts;
 * an absent or unrecognized kind means unspecified, never inferred from `name`.
 */
export const HostInfo = z.looseObject({
  kind: z.string().optional(),
  name: z.string(),
  version: z.string(),
});
/** The host's identity. */
export type HostInfo = z.infer<typeof HostInfo>;

/** The workspace of the session; absent for configuration-free compilation. */
export const Workspace = z.looseObject({
  rootUri: z.string(),
});
/** The workspace of the session. */
export type Workspace = z.infer<typeof Workspace>;

/** What the host itself supports in this session. */
export const HostCapabilities = z.looseObject({
  cancellation: z.boolean().optional(),
  progress: z.boolean().optional(),
  /** The host takes morphir.backend.artifact notifications (streamed artifacts, an extension of MEP 0.1). */
  artifactStream: z.boolean().optional(),
});
/** What the host itself supports. */
export type HostCapabilities = z.infer<typeof HostCapabilities>;

/**
 * Resource permissions the host grants. A member the host leaves out is not granted
 * (false, or no environment variables).
 */
export const Permissions = z.looseObject({
  workspaceRead: z.boolean().optional(),
  workspaceWrite: z.boolean().optional(),
  network: z.boolean().optional(),
  environment: z.array(z.string()).optional(),
});
/** Resource permissions the host grants. */
export type Permissions = z.infer<typeof Permissions>;

/** Params of morphir.initialize. An empty `protocolVersions` is well-formed and answered with -32011. */
export const InitializeParams = z.looseObject({
  protocolVersions: z.array(z.string()),
  host: HostInfo,
  workspace: Workspace.optional(),
  capabilities: HostCapabilities.optional(),
  permissions: Permissions.optional(),
});
/** Params of morphir.initialize. */
export type InitializeParams = z.infer<typeof InitializeParams>;

/** An extension's identity: stable id, display name and version. */
export const ExtensionIdentity = z.looseObject({
  id: NonEmptyString,
  name: z.string(),
  version: NonEmptyString,
});
/** An extension's identity. */
export type ExtensionIdentity = z.infer<typeof ExtensionIdentity>;

/**
 * What morphir.extension.info returns: the identity of the initialize result. Real extensions
 * (morphir-elm) also send `types`, the kinds they implement; it is read as plain strings here
 * because info is not a claim set and is not checked strictly.
 */
export const ExtensionInfo = ExtensionIdentity.extend({
  types: z.array(z.string()).optional(),
});
/** What morphir.extension.info returns. */
export type ExtensionInfo = z.infer<typeof ExtensionInfo>;

/** Result of morphir.initialize: the one negotiated version, identity and session capabilities. */
export const InitializeResult = z.looseObject({
  protocolVersion: NonEmptyString,
  extension: ExtensionInfo,
  capabilities: Capabilities,
});
/** Result of morphir.initialize. */
export type InitializeResult = z.infer<typeof InitializeResult>;
