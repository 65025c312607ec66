/**
 * Turns the `<extension>` argument or `--extension` flag into something to launch, and finds a
 * provider by capability when the flag is absent. A path to an artifact runs as given (no lock,
 * no secrets); a name is an installed id, verified against its lock first, and nothing else.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ClaimSet } from '../../protocol/index.ts';
import type { ExtensionLimits } from '../../protocol/limits.ts';
import { findInstalled, discoverExtensions } from '../../registry/discover.ts';
import type { InstalledExtension } from '../../registry/discover.ts';
import { isExtensionId } from '../../registry/extension-id.ts';
import { isExtensionUrl, specFromUrl, specOfFile } from '../../registry/launch.ts';
import { withLimits } from '../../registry/launch-limits.ts';
import { withGrants } from '../../registry/launch-grants.ts';
import type { ClockRandomGrants } from '../../registry/launch-grants.ts';
import type { LaunchSpec } from '../../registry/launch.ts';
import { registryPaths } from '../../registry/paths.ts';
import type { RegistryPaths } from '../../registry/paths.ts';
import { claimsOf, verifyInstalled } from '../../registry/prepare.ts';
import type { ClaimReadOptions, LaunchContext } from '../../registry/prepare.ts';
import { matchNeed } from '../../registry/provider-need.ts';
import type { ProviderNeed } from '../../registry/provider-need.ts';
import { selectProvider } from '../../registry/select.ts';
import type { Transport } from '../../transport/types.ts';
import { UsageError } from '../exit-codes.ts';
import { LocalErrorCode, MepError } from '../../protocol/errors.ts';
import type { Io } from '../io.ts';
import { looksLikePath } from './extension-path.ts';

/** An extension ready to launch, with what the registry knows about it. */
export interface ResolvedExtension {
  spec: LaunchSpec;
  /** Set for installed extensions (verified against the lock). */
  installed?: InstalledExtension;
  /** The pinned (or freshly read and pinned) claim set of an installed extension. */
  claims?: ClaimSet;
  /** For a frontend chosen by capability: the language id it claims for the input. */
  language?: string;
}

/** Options shared by the resolvers. */
export interface ResolveOptions {
  /** Wraps transports opened to read unpinned claims (transcripts). */
  wrapTransport?: (transport: Transport) => Transport;
  /** Limits from the command line; they win over the manifest's `limits`. */
  limits?: ExtensionLimits;
  /** Clock and randomness granted on the command line, added to what the manifest asks. */
  grants?: ClockRandomGrants;
  /**
   * Send `MEP_HTTP_TOKEN` to an extension given as a URL (a client's token for that server).
   * Default true; `mep serve` says false: there `MEP_HTTP_TOKEN` is the server's own token,
   * which must not go on to another server (one behind it takes `user:token@` in its URL).
   */
  urlTokenFromEnv?: boolean;
}

/** The registry paths of a CLI run: the project is the working directory. */
export function cliRegistryPaths(io: Io): RegistryPaths {
  return registryPaths({ cwd: io.cwd, env: process.env });
}

/**
 * What readying an installed extension needs from the run: the registry (its configuration
 * approves a remote's token) and the run's redactor, which takes the token, so nothing the run
 * prints (a careless server echoing it included) shows it.
 */
function launchContextOf(io: Io): LaunchContext {
  return { paths: cliRegistryPaths(io), redactor: io.redactor };
}

function claimOptions(io: Io, options: ResolveOptions): ClaimReadOptions {
  return {
    wrapTransport: options.wrapTransport,
    onPinned: (installed) => io.verbose && io.err(`read and pinned the claims of ${installed.id} in ${installed.lock}`),
  };
}

export { looksLikePath } from './extension-path.ts';

/** What an `--extension` argument names: a file's spec, or an installed extension's (verified) spec. */
async function findArgument(argument: string, io: Io, options: ResolveOptions): Promise<{ spec?: LaunchSpec; installed?: InstalledExtension; info?: Stats }> {
  const { limits, grants } = options;
  // An extension served elsewhere: nothing to find here, the transport reaches it with the
  // token decided now (URL userinfo aside).
  if (isExtensionUrl(argument)) {
    const token = options.urlTokenFromEnv === false ? undefined : process.env.MEP_HTTP_TOKEN;
    // Scrubbed from everything the run prints (a server may echo it in an error).
    if (token) io.redactor.add(token);
    return { spec: withLimits(specFromUrl(argument, { remote: token ? { token } : {} }), limits) };
  }
  if (looksLikePath(argument)) {
    const path = resolve(io.cwd, argument);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) return { spec: specOfFile(path, limits, grants), info };
    return { info };
  }
  // A name is looked up among installed extensions only, never in the working directory.
  const installed = isExtensionId(argument) ? await findInstalled(cliRegistryPaths(io), argument) : undefined;
  if (installed) return { spec: withGrants(withLimits(await verifyInstalled(installed, launchContextOf(io)), limits), grants), installed };
  return {};
}

/** The refusal of a name that no installed extension has, saying how to run a file of that name. */
async function notInstalled(argument: string, io: Io): Promise<MepError> {
  const ids = (await discoverExtensions(cliRegistryPaths(io))).extensions.map((e) => e.id);
  const here = await stat(resolve(io.cwd, argument)).then((s) => s.isFile(), () => false);
  const file = `./${argument}`;
  const hint = here ? `; to run the file in this folder, write ${file}` : ids.length ? ` (installed: ${ids.join(', ')})` : "; none is installed (see 'mep install'), and a file is given as a path (./x.wasm)";
  return new MepError(LocalErrorCode.Usage, `no installed extension '${argument}'${hint}.`, {
    data: { extension: argument, reason: 'not-installed', installed: ids, ...(here ? { file } : {}) },
  });
}

/**
 * The launch spec of an `--extension` argument, found without reading claims (nothing is
 * started or written), or undefined when the argument names nothing; for starting it ahead.
 */
export async function launchSpecOfArgument(argument: string, io: Io, limits?: ExtensionLimits, grants?: ClockRandomGrants): Promise<LaunchSpec | undefined> {
  return (await findArgument(argument, io, { ...(limits ? { limits } : {}), ...(grants ? { grants } : {}) })).spec;
}

/**
 * A path to an artifact (.wasm, .js/.mjs, executable; written as a path, see {@link looksLikePath})
 * or the id of an installed extension. Throws UsageError for a path that names no file, and
 * MepError(ERR_USAGE, `data.reason: 'not-installed'`) for a name nobody installed.
 */
export async function resolveExtensionArgument(argument: string, io: Io, options: ResolveOptions = {}): Promise<ResolvedExtension> {
  const { spec, installed, info } = await findArgument(argument, io, options);
  if (spec && !installed) return { spec };
  if (spec && installed) {
    const { claims } = await claimsOf(installed, launchContextOf(io), claimOptions(io, options));
    return { spec, installed, claims };
  }
  if (!looksLikePath(argument)) throw await notInstalled(argument, io);
  if (info) throw new UsageError(`${argument} is not a file; pass a .wasm module, a .js/.mjs script, an executable or an installed extension id.`);
  throw new UsageError(`no extension at ${argument}: pass a .wasm module, a .js/.mjs script or an executable by its path, or an installed id.`);
}

/**
 * The provider for `need`: the `--extension` argument when given (an installed one must meet
 * the need), else the one installed extension whose claims meet it.
 */
export async function resolveProvider(argument: string | undefined, need: ProviderNeed | undefined, io: Io, options: ResolveOptions = {}): Promise<ResolvedExtension> {
  if (argument !== undefined || need === undefined) {
    if (argument === undefined) throw new UsageError('an extension is required: pass an installed id or the path of a .wasm module, a .js/.mjs script or an executable.');
    const resolved = await resolveExtensionArgument(argument, io, options);
    if (resolved.claims && need !== undefined) {
      const match = matchNeed(resolved.claims, need);
      if (match.ok && match.language) resolved.language = match.language;
    }
    return resolved;
  }
  const selected = await selectProvider(cliRegistryPaths(io), need, { ...claimOptions(io, options), redactor: io.redactor });
  if (io.verbose) io.err(`selected ${selected.installed.id} ${selected.installed.manifest.version} from ${selected.installed.dir}`);
  return { spec: withGrants(withLimits(selected.spec, options.limits), options.grants), installed: selected.installed, claims: selected.claims, ...(selected.language ? { language: selected.language } : {}) };
}
