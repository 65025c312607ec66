/**
 * The operations of a session: the queries allowed by the lifecycle (describe, ping, info,
 * capabilities) and the capability operations (compile, generate, validate, transform), each
 * refused before dispatch when the state or the negotiated capabilities do not allow it
 * (capability-checks.ts), and each result decoded against its schema.
 */
import {
  CompileResult,
  GenerateResult,
  InitializeResult,
  Method,
  TransformResult,
  ValidateResult,
  decodeResult,
  normalizeCompileParams,
  sourcePaths,
} from '../protocol/index.ts';
import { checkMetadataBounds } from '../protocol/metadata-bounds.ts';
import { generateWithStream } from './artifact-stream.ts';
import { checkCompile, checkGenerate, checkTransform, checkValidate } from './capability-checks.ts';
import type { GenerateOptions, Session } from './types.ts';
import type { SessionCore } from './session-core.ts';
import { SessionState } from './state.ts';

/** The operation methods of {@link Session}. */
export type SessionOperations = Pick<Session, 'describe' | 'ping' | 'info' | 'capabilities' | 'compile' | 'generate' | 'validate' | 'transform'>;

/** The operations of the session `core`. */
export function sessionOperations(core: SessionCore): SessionOperations {
  const { lifecycle } = core;

  async function operation<T>(method: string, params: unknown, schema: Parameters<typeof decodeResult>[0], opts?: GenerateOptions): Promise<T> {
    lifecycle.require(`call ${method}`, SessionState.Ready);
    try {
      const raw = await core.call(method, params, opts);
      return decodeResult(schema, raw, `the ${method} result from '${core.extension}'`) as T;
    } catch (error) {
      core.failOnFatal(error);
      throw error;
    }
  }

  return {
    async describe(opts) {
      lifecycle.require('describe', SessionState.Starting, SessionState.Initializing, SessionState.Ready);
      return core.call(Method.Describe, { protocolVersions: core.offered }, opts);
    },
    async ping(opts) {
      lifecycle.require('ping', SessionState.Starting, SessionState.Ready);
      return core.call(Method.Ping, {}, opts);
    },
    async info(opts) {
      lifecycle.require('read extension info', SessionState.Ready);
      return core.call(Method.Info, {}, opts);
    },
    async capabilities(opts) {
      // The describe fallback pins what this answers (read-claims.ts): bounded like a claim set.
      const capabilities = await operation<InitializeResult['capabilities']>(Method.Capabilities, {}, InitializeResult.shape.capabilities, opts);
      return checkMetadataBounds(capabilities, 'The capabilities answer', core.extension);
    },
    async compile(params, opts) {
      lifecycle.require('compile', SessionState.Ready);
      const normalized = normalizeCompileParams(params);
      checkCompile(core.extension, core.negotiated(), normalized, normalized.sources.documents.length);
      // MEP 0.1, Frontend compilation: identities that clash or escape the root are the host's to refuse.
      sourcePaths(normalized.sources);
      return operation<CompileResult>(Method.FrontendCompile, normalized, CompileResult, opts);
    },
    async generate(params, opts) {
      lifecycle.require('generate', SessionState.Ready);
      checkGenerate(core.extension, core.negotiated(), params);
      return generateWithStream(core, opts ?? {}, (withId) => operation<GenerateResult>(Method.BackendGenerate, params, GenerateResult, withId));
    },
    async validate(params, opts) {
      lifecycle.require('validate', SessionState.Ready);
      checkValidate(core.extension, core.negotiated(), params);
      return operation<ValidateResult>(Method.ValidatorValidate, params, ValidateResult, opts);
    },
    async transform(params, opts) {
      lifecycle.require('transform', SessionState.Ready);
      checkTransform(core.extension, core.negotiated(), params);
      return operation<TransformResult>(Method.TransformTransform, params, TransformResult, opts);
    },
  };
}
