/**
 * The host side of `secret.resolve`: a reference is resolved only when the extension's manifest
 * lists it exactly AND the user's configuration approves it; otherwise the extension gets
 * -32012 naming the reference. Resolved values go to the redactor before they leave this file.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isWithin } from '../files/path-within.ts';
import { ErrorCode, MepError } from '../protocol/errors.ts';
import { HOST_FILE_LIMITS } from '../protocol/limits.ts';
import { readTextFile } from '../files/regular-file.ts';
import { SecretResolveParams, decodeParams } from '../protocol/index.ts';
import type { Redactor } from './redact.ts';
import { parseSecretReference } from './secret-reference.ts';

/** One decision, for the user's log; never carries the value. */
export interface SecretEvent {
  extension: string;
  reference: string;
  outcome: 'granted' | 'denied' | 'unavailable';
  /** Why it was denied or unavailable, and what to do. */
  reason?: string;
}

/** Options of {@link createSecretResolver}. */
export interface SecretResolverOptions {
  /** The extension id, for messages. */
  extension: string;
  /** References the manifest lists (`permissions.secrets`). */
  requested: readonly string[];
  /** References the user's configuration approves for this extension (and a trusted project's). */
  approved: readonly string[];
  /**
   * Those of `approved` only the project's configuration approves: a `file("…")` among them is
   * read only when its real path lies inside `baseDir` (a link out of the project included).
   */
  projectOnly?: readonly string[];
  /** What only an untrusted project configuration approves: denied, naming the file and `mep trust`. */
  untrusted?: { references: readonly string[]; reason: 'untrusted' | 'changed' };
  /** Where `env("NAME")` is read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Base directory of relative `file("path")` references (the project directory). */
  baseDir: string;
  /** Receives every resolved value before it is returned. */
  redactor: Redactor;
  /** Told about every request. */
  onEvent?: (event: SecretEvent) => void;
}

/** Why a reference only an untrusted project configuration approves is denied, and what to do. */
function untrustedReason(reason: 'untrusted' | 'changed'): string {
  const why = reason === 'changed' ? 'which has changed since you trusted it' : 'which you have not trusted';
  return `only this project's .mep/config.json approves it, ${why}; review that file, then run 'mep trust' in the project (or approve it in $MEP_HOME/config.json)`;
}

const PROJECT_FILE_OUTSIDE = "the file lies outside the project, and only the project's .mep/config.json approves it; approve it in $MEP_HOME/config.json to let it read files outside the project";

/** The real path of `path` when it lies inside the real path of `root`, `outside` when not, or the errno that stopped resolving it. */
async function insideProject(path: string, root: string): Promise<{ real: string } | { refused: 'outside' | string }> {
  try {
    const [real, realRoot] = await Promise.all([realpath(path), realpath(root)]);
    return isWithin(real, realRoot) ? { real } : { refused: 'outside' };
  } catch (error) {
    return { refused: (error as NodeJS.ErrnoException).code ?? 'error' };
  }
}

/**
 * Builds the `secret.resolve` request handler for one extension.
 *
 * @example
 * session.peer.onRequest(Method.SecretResolve, createSecretResolver({ extension, requested, approved, baseDir, redactor }));
 */
export function createSecretResolver(options: SecretResolverOptions): (params: unknown) => Promise<string> {
  const env = options.env ?? process.env;
  const { extension } = options;
  function deny(reference: string, outcome: 'denied' | 'unavailable', reason: string): MepError {
    options.onEvent?.({ extension, reference, outcome, reason });
    return new MepError(ErrorCode.PermissionDenied, `secret.resolve ${reference} ${outcome === 'denied' ? 'denied' : 'unavailable'}: ${reason}`, {
      data: { reference, reason: outcome },
    });
  }
  return async (params) => {
    const { reference } = decodeParams(SecretResolveParams, params, 'secret.resolve');
    const parsed = parseSecretReference(reference);
    if (!parsed) throw deny(reference, 'denied', 'not a secret reference (use env("NAME") or file("path"))');
    if (!options.requested.includes(reference)) {
      throw deny(reference, 'denied', `extension '${extension}' does not list it in extension.json permissions.secrets`);
    }
    if (!options.approved.includes(reference)) {
      if (options.untrusted?.references.includes(reference)) throw deny(reference, 'denied', untrustedReason(options.untrusted.reason));
      throw deny(reference, 'denied', `the configuration does not approve it; add it under "secrets": {"${extension}": [...]} in $MEP_HOME/config.json (or in the project's .mep/config.json, then run 'mep trust')`);
    }
    let value: string | undefined;
    if (parsed.kind === 'env') {
      value = env[parsed.name];
      if (value === undefined) throw deny(reference, 'unavailable', `the environment variable ${parsed.name} is not set`);
    } else {
      let path = isAbsolute(parsed.path) ? parsed.path : resolve(options.baseDir, parsed.path);
      if (options.projectOnly?.includes(reference)) {
        const inside = await insideProject(path, options.baseDir);
        if ('refused' in inside) {
          throw inside.refused === 'outside' ? deny(reference, 'denied', PROJECT_FILE_OUTSIDE) : deny(reference, 'unavailable', `the file cannot be read (${inside.refused})`);
        }
        path = inside.real; // the path checked is the path read
      }
      try {
        // One trailing newline is how secret files are usually written; it is not part of the value.
        // A regular file only: a FIFO or a device would hang or flood the host on the extension's request.
        value = (await readTextFile(path, { what: 'the secret file', maxBytes: HOST_FILE_LIMITS.smallFileBytes })).replace(/\r?\n$/, '');
      } catch (error) {
        const data = (error as MepError).data as { reason?: string } | undefined;
        throw deny(reference, 'unavailable', `the file cannot be read (${data?.reason ?? (error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    options.redactor.add(value);
    options.onEvent?.({ extension, reference, outcome: 'granted' });
    return value;
  };
}
