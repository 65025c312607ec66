/**
 * The served-host protocol (`mep serve`): method and notification names, and the zod schemas of
 * their params. JSON-RPC 2.0, one message per line; a client needs only a socket and JSON.
 *
 * Requests (client → server):
 * - `server/info` `{}` → {@link ServerInfo}
 * - `session/open` {@link OpenParams} → `{ sessionId, initialize }`
 * - `session/call` {@link CallParams} → the MEP operation's result
 * - `session/close` {@link SessionParams} → `{ closed: true }`
 * - `project/compile` {@link ProjectCompileParams} → {@link ProjectCompileReply} (when the server
 *   can read projects: `mep serve` can)
 * - `server/shutdown` `{}` → `{}`, then every session is closed and the server stops
 * Notifications (client → server): `$/cancelRequest` `{ id }`.
 * Notifications (server → client): `session/progress`, `session/log`, `session/closed`.
 */
import * as z from 'zod';
import { MAX_CALL_TIMEOUT_MS_CEILING } from '../protocol/limits.ts';
import { Method } from '../protocol/methods.ts';

/** Request and notification names of the served-host protocol. */
export const ServeMethod = {
  /** Request: who the server is and which methods it serves. */
  Info: 'server/info',
  /** Request: start an extension and run the MEP handshake. */
  Open: 'session/open',
  /** Request: one MEP operation on an open session. */
  Call: 'session/call',
  /** Request: shut a session down (shutdown, exit, stop the extension). */
  Close: 'session/close',
  /** Request: compile the Morphir project in a folder of the server's machine with a session's frontend. */
  ProjectCompile: 'project/compile',
  /** Request: close every session of every client and stop serving. */
  Shutdown: 'server/shutdown',
  /** Notification to the client: `morphir.progress` of a call, tagged with the session. */
  Progress: 'session/progress',
  /** Notification to the client: a log entry of an extension, tagged with the session. */
  Log: 'session/log',
  /** Notification to the client: a session ended without `session/close` (crash, limit). */
  Closed: 'session/closed',
} as const;

/** The version of the served-host protocol, reported by `server/info`. */
export const SERVE_PROTOCOL = 'mep-serve/0.1';

/** The MEP methods `session/call` accepts; lifecycle methods belong to open and close. */
export const CALLABLE_METHODS = [
  Method.BackendGenerate,
  Method.FrontendCompile,
  Method.ValidatorValidate,
  Method.TransformTransform,
  Method.Describe,
  Method.Ping,
  Method.Info,
  Method.Capabilities,
] as const;

/** One method from {@link CALLABLE_METHODS}. */
export type CallableMethod = (typeof CALLABLE_METHODS)[number];

const PositiveInt = z.number().int().positive();
/**
 * A deadline in ms: at most the longest timer a host arms (2^31 − 1 ms, about 24.8 days), the
 * ceiling of `--call-timeout`, so a client's deadline means what it says.
 */
const Deadline = PositiveInt.max(MAX_CALL_TIMEOUT_MS_CEILING, { message: `a deadline is at most ${MAX_CALL_TIMEOUT_MS_CEILING} ms (about 24.8 days)` });

/** Params of `session/open`. */
export const OpenParams = z.strictObject({
  /** An installed extension id, or a path to an artifact (.wasm, .js/.mjs, executable) written as a path (`./x.wasm`): a bare name is always an id. */
  extension: z.string().min(1),
  /** Runtime options; the server always isolates wasm guests in a worker. */
  runtime: z
    .strictObject({
      /** Wasm sandbox limits (defaults: 256 MiB memory, 64 MiB messages, 30 s per call, 64 MiB modules and notifications a call); sizes at most the server's (client-limits.ts). */
      limits: z
        .strictObject({
          maxMemoryBytes: PositiveInt.optional(),
          maxRequestBytes: PositiveInt.optional(),
          maxResponseBytes: PositiveInt.optional(),
          callTimeoutMs: Deadline.optional(),
          maxModuleBytes: PositiveInt.optional(),
          maxNotificationBytes: PositiveInt.optional(),
        })
        .optional(),
      /** Default deadline of each `session/call` of this session, in ms. Default 30 000. */
      requestTimeoutMs: Deadline.optional(),
    })
    .optional(),
});
/** Params of `session/open`. */
export type OpenParams = z.infer<typeof OpenParams>;

/** Params of `session/close`. */
export const SessionParams = z.strictObject({ sessionId: z.string().min(1) });
/** Params of `session/close`. */
export type SessionParams = z.infer<typeof SessionParams>;

/** Params of `session/call`. */
export const CallParams = z.strictObject({
  sessionId: z.string().min(1),
  /** An MEP method name from {@link CALLABLE_METHODS}, e.g. `morphir.backend.generate`. */
  method: z.enum(CALLABLE_METHODS),
  /** The MEP params of that method, unchanged (e.g. a GenerateRequest). */
  params: z.unknown().optional(),
  /** Deadline of this call in ms (at most 2147483647); overrides the session's. */
  timeoutMs: Deadline.optional(),
});
/** Params of `session/call`. */
export type CallParams = z.infer<typeof CallParams>;

/** Params of `project/compile`. */
export const ProjectCompileParams = z.strictObject({
  sessionId: z.string().min(1),
  /** The project folder (with morphir.json), absolute or relative to the server's working directory. */
  projectDir: z.string().min(1),
  /** Where the IR is written: a path (relative to the project), or `false` to get the IR back instead. Default `morphir-ir.json` in the project. */
  output: z.union([z.string().min(1), z.literal(false)]).optional(),
  /** Compile options sent to the frontend (`typesOnly`, `irVersion`). */
  options: z.record(z.string(), z.unknown()).optional(),
  /** Deadline of the compile in ms (at most 2147483647); overrides the session's. */
  timeoutMs: Deadline.optional(),
});
/** Params of `project/compile`. */
export type ProjectCompileParams = z.infer<typeof ProjectCompileParams>;

/** Result of `project/compile`: the compile result without the IR when it was written. */
export interface ProjectCompileReply {
  success: boolean;
  projectDir: string;
  irVersion: string | null;
  modules: string[];
  diagnostics: unknown[];
  /** The file written, or null (failed compile, or `output: false`). */
  output: string | null;
  /** The IR, only with `output: false`. */
  ir?: unknown;
}

/** Result of `server/info`. */
export interface ServerInfo {
  name: string;
  version: string;
  protocol: typeof SERVE_PROTOCOL;
  methods: string[];
  callable: readonly string[];
}
