/**
 * The host side of `secret.resolve`: a reference is resolved only when the extension's manifest
 * lists it exactly AND the user's configuration approves it; otherwise the extension gets
 * -32012 naming the reference. Resolved values go to the redactor before they leave this file.
 */
import { isAbsolute, resolve } from 'node:path';
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
  /** References the user's configuration approves for this extension. */
  approved: readonly string[];
  /** Where `env("NAME")` is read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Base directory of relative `file("path")` references (the project directory). */
  baseDir: string;
  /** Receives every resolved value before it is returned. */
  redactor: Redactor;
  /** Told about every request. */
  onEvent?: (event: SecretEvent) => void;
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
      throw deny(reference, 'denied', `the configuration does not approve it; add it under "secrets": {"${extension}": [...]} in .mep/config.json or $MEP_HOME/config.json`);
    }
    let value: string | undefined;
    if (parsed.kind === 'env') {
      value = env[parsed.name];
      if (value === undefined) throw deny(reference, 'unavailable', `the environment variable ${parsed.name} is not set`);
    } else {
      const path = isAbsolute(parsed.path) ? parsed.path : resolve(options.baseDir, parsed.path);
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
