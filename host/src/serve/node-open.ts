/**
 * Node's way to open what a client names in `session/open`: resolve it to a launch spec (and,
 * for an installed extension, its pinned claims), then start it with the registry's launcher.
 * Wasm guests always run in a worker (killable at their deadline), so one client's runaway
 * guest cannot stall the server's other clients.
 */
import type { ClaimSet } from '../protocol/index.ts';
import { openTransport, specFromPath, type LaunchSpec, type ProcessBounds } from '../registry/launch.ts';
import { outputLimitsOf, requestTimeoutOf } from '../registry/launch-limits.ts';
import { checkClientLimits } from './client-limits.ts';
import type { OpenExtension } from './connection.ts';

/** Options of {@link createNodeOpener}. */
export interface NodeOpenerOptions {
  /**
   * Turns the `extension` of `session/open` (an installed id, or a path written as one: `./x.wasm`) into a launch spec and
   * its pinned claims; the CLI passes its own resolver (which verifies installed extensions
   * against their lock). Default: a path relative to the server's working directory.
   */
  resolve?: (reference: string) => Promise<{ spec: LaunchSpec; claims?: ClaimSet }>;
  /** A process extension's stdin bounds (`mep serve --stdin-backlog`, `--stdin-stall`). Default HOST_BOUNDS'. */
  process?: ProcessBounds;
}

/**
 * An {@link OpenExtension} for Node: process extensions as child processes (empty environment),
 * wasm extensions sandboxed in a worker with the client's limits, where they are at most the
 * server's (client-limits.ts).
 *
 * @example
 * const server = createHostServer({ open: createNodeOpener() });
 */
export function createNodeOpener(options: NodeOpenerOptions = {}): OpenExtension {
  const resolve = options.resolve ?? (async (reference: string): Promise<{ spec: LaunchSpec; claims?: ClaimSet }> => ({ spec: specFromPath(reference) }));
  return async (request, { log, signal, frameBudget }) => {
    const { spec, claims } = await resolve(request.extension);
    // The server's limits bound what the client asks: lower, never higher.
    checkClientLimits(spec, request.runtime?.limits);
    const wasm = { ...spec.wasm, isolation: 'worker' as const, limits: { ...spec.wasm?.limits, ...request.runtime?.limits } };
    const launched = { ...spec, wasm };
    // A client that leaves mid-open aborts `signal`: a wasm guest still starting is stopped then.
    // An installed remote: a session per HTTP request, so every call is on a handshake that checked its pinned identity.
    const oneRequest = spec.runtime === 'http' && spec.remote?.identity !== undefined;
    return { transport: await openTransport(launched, log, { signal, ...(frameBudget ? { frameBudget } : {}), ...(options.process ? { process: options.process } : {}) }), requestTimeoutMs: requestTimeoutOf(launched), outputLimits: outputLimitsOf(launched), ...(claims ? { claims } : {}), ...(oneRequest ? { oneRequest } : {}) };
  };
}
