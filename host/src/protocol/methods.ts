/**
 * MEP 0.1 method names and the version constants of the protocol and of capability claim sets.
 *
 * MEP 0.1, Core methods and Capability methods: method names use the dotted Morphir namespaces;
 * `$/cancelRequest` is the LSP cancellation notification.
 */

/** Every JSON-RPC method name MEP 0.1 defines, keyed by a stable TypeScript name. */
export const Method = {
  /** Host → extension request: negotiate version, identity, permissions and capabilities. */
  Initialize: 'morphir.initialize',
  /** Host → extension notification: the host accepted the handshake. */
  Initialized: 'morphir.initialized',
  /** Host → extension request: liveness check, allowed before initialization. */
  Ping: 'morphir.ping',
  /** Host → extension request: read the capability claim set, with no side effects. */
  Describe: 'morphir.extension.describe',
  /** Host → extension request: read extension identity and version after initialization. */
  Info: 'morphir.extension.info',
  /** Host → extension request: read the negotiated capabilities after initialization. */
  Capabilities: 'morphir.extension.capabilities',
  /** Host → extension request: stop accepting work. */
  Shutdown: 'morphir.shutdown',
  /** Host → extension notification: end the session. */
  Exit: 'morphir.exit',
  /** Notification (either direction): cancel an active request. */
  CancelRequest: '$/cancelRequest',
  /** Extension → host notification: progress of an active request. */
  Progress: 'morphir.progress',
  /** Extension → host notification: one log entry `{ level, message }`. */
  Log: 'morphir.log',
  /** Host → extension request: compile source documents to Morphir IR. */
  FrontendCompile: 'morphir.frontend.compile',
  /** Host → extension request: generate artifacts from Morphir IR. */
  BackendGenerate: 'morphir.backend.generate',
  /** Host → extension request: validate Morphir IR, returning diagnostics. */
  ValidatorValidate: 'morphir.validator.validate',
  /** Host → extension request: transform Morphir IR to Morphir IR. */
  TransformTransform: 'morphir.transform.transform',
  /** Extension → host request: resolve a secret reference to its value. */
  SecretResolve: 'secret.resolve',
  /**
   * Extension → host notification: one artifact of an active morphir.backend.generate, sent
   * before its result. An extension of MEP 0.1 (streamed artifacts): only sent to a host whose
   * initialize capabilities say `artifactStream: true` (protocol/notifications.ts).
   */
  BackendArtifact: 'morphir.backend.artifact',
} as const;

/** One method name from {@link Method}. */
export type MethodName = (typeof Method)[keyof typeof Method];

/** The MEP protocol versions this implementation speaks, in preference order. */
export const PROTOCOL_VERSIONS = ['0.1'] as const;

/** One protocol version from {@link PROTOCOL_VERSIONS}. */
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** The capability claim set version this implementation writes (MEP 0.1, Version numbers). */
export const CLAIMS_VERSION = '0.1.0-draft.2';

/**
 * The first claim set draft, which called the document a capability statement and spelled its
 * version member `statementVersion`. Read and converted, never written.
 */
export const STATEMENT_VERSION_DRAFT_1 = '0.1.0-draft.1';

/**
 * Methods an extension answers before `morphir.initialize` (MEP 0.1, Lifecycle). Every other
 * request in that state is refused with -32014.
 */
export const PRE_INITIALIZE_METHODS: readonly MethodName[] = [Method.Initialize, Method.Describe, Method.Ping, Method.Exit];
