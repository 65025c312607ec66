/**
 * The `<source>` of `mep install`, parsed: a local package directory, a git URL with optional
 * `//subdir` and `#ref`, or a `.tar.gz`/`.tgz`/`.zip` archive (local path, `file://` or
 * `https://`) with an optional `#sha256=<hex>`.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LocalErrorCode, MepError } from '../protocol/errors.ts';

/** Archive formats install can read. */
export type ArchiveFormat = 'tar.gz' | 'zip';

/** A parsed install source. `spec` is the string as given (recorded in the lock for remote sources). */
export type InstallSource =
  | { kind: 'directory'; spec: string; path: string }
  | { kind: 'git'; spec: string; url: string; ref?: string; subdir?: string }
  | { kind: 'archive'; spec: string; format: ArchiveFormat; location: { path: string } | { url: string }; sha256?: string };

function usage(message: string, spec: string): MepError {
  return new MepError(LocalErrorCode.Usage, message, { data: { source: spec } });
}

function archiveFormat(path: string): ArchiveFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.zip')) return 'zip';
  return undefined;
}

function looksLikeGit(spec: string): boolean {
  return /^(git@|git:\/\/|ssh:\/\/|git\+|https?:\/\/|file:\/\/)/.test(spec) || /\.git($|[/#])/.test(spec);
}

/** Splits `url//subdir` after the scheme's own `//` (and after `host:` for scp-like URLs). */
function splitSubdir(location: string): { url: string; subdir?: string } {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(location);
  const from = scheme ? scheme[0].length : 0;
  // `file:///repo` leaves "/repo": skip the path's own leading slash.
  const at = location.indexOf('//', from + 1);
  if (at < 0) return { url: location };
  const subdir = location.slice(at + 2).replace(/\/+$/, '');
  return subdir ? { url: location.slice(0, at), subdir } : { url: location.slice(0, at) };
}

/** `scheme://user:password@…`: the user and the password of a URL's authority. */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):([^/?#@]*)@/i;

/**
 * Refuses a URL carrying a password: it would reach git's command line (readable by every user
 * of the machine), every message naming the source, and the lock's `source`, which a project
 * shares. The password is shown as `***`.
 */
function refusePassword(spec: string, location: string): void {
  if (!URL_PASSWORD.test(location)) return;
  const shown = spec.replace(URL_PASSWORD, '$1:***@');
  throw new MepError(LocalErrorCode.Usage, `The source ${shown} carries a password in its URL, which would be passed on the command line, shown and recorded in the lock's "source". Remove it and give it to git through a credential helper (git help credentials) or ~/.netrc.`, {
    data: { source: shown, reason: 'credentials-in-url' },
  });
}

/** `scheme://…?query`: a URL's query string (before any `#`). */
const URL_QUERY = /^([a-z][a-z0-9+.-]*:\/\/[^?#]*)\?[^#]*/i;

/**
 * Refuses a URL carrying a query string: a presigned URL's signature or an access token is a
 * credential like a password (and one that expires, so a lock recording it could not fetch again),
 * and the query would reach the same places. The query is shown as `?***`.
 */
function refuseQuery(spec: string, location: string): void {
  if (!URL_QUERY.test(location)) return;
  const shown = spec.replace(URL_QUERY, '$1?***');
  throw new MepError(LocalErrorCode.Usage, `The source ${shown} carries a query string in its URL (a signature or a token, often), which would be passed on the command line, shown and recorded in the lock's "source". Give a URL without one: download the archive and install the file (check it with #sha256=), or give git the token through a credential helper (git help credentials).`, {
    data: { source: shown, reason: 'credentials-in-url' },
  });
}

/**
 * Classifies `spec`; relative local paths resolve against `cwd`. A URL with a password or a query string is refused.
 *
 * @example
 * parseInstallSource('file:///srv/repo.git//ext/crm#v1.2.0', cwd); // { kind: 'git', url, subdir: 'ext/crm', ref: 'v1.2.0' }
 */
export function parseInstallSource(spec: string, cwd: string): InstallSource {
  const hash = spec.indexOf('#');
  const location = hash < 0 ? spec : spec.slice(0, hash);
  const fragment = hash < 0 ? undefined : spec.slice(hash + 1);
  if (location === '') throw usage(`Empty install source ${JSON.stringify(spec)}; pass a directory, a git URL or an archive.`, spec);
  refusePassword(spec, location);
  refuseQuery(spec, location);

  const format = archiveFormat(location);
  if (format) {
    let sha256: string | undefined;
    if (fragment !== undefined) {
      const match = /^sha256=([0-9a-fA-F]{64})$/.exec(fragment);
      if (!match) throw usage(`The archive source ${spec} has fragment #${fragment}; the only one allowed is #sha256=<64 hex digits>.`, spec);
      sha256 = (match[1] as string).toLowerCase();
    }
    let where: { path: string } | { url: string };
    if (location.startsWith('file://')) where = { path: fileURLToPath(location) };
    else if (/^https?:\/\//.test(location)) where = { url: location };
    else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) throw usage(`Unsupported archive URL scheme in ${spec}; use https://, file:// or a local path.`, spec);
    else where = { path: isAbsolute(location) ? location : resolve(cwd, location) };
    return { kind: 'archive', spec, format, location: where, ...(sha256 ? { sha256 } : {}) };
  }

  if (looksLikeGit(location)) {
    const { url, subdir } = splitSubdir(location);
    if (subdir !== undefined && (subdir.startsWith('/') || subdir.split('/').includes('..'))) {
      throw usage(`The subdirectory //${subdir} in ${spec} must be a relative path inside the repository.`, spec);
    }
    if (fragment === '') throw usage(`The git source ${spec} ends with an empty #ref; name a branch, tag or commit, or drop the '#'.`, spec);
    return { kind: 'git', spec, url, ...(fragment ? { ref: fragment } : {}), ...(subdir ? { subdir } : {}) };
  }

  if (fragment !== undefined) throw usage(`A local directory source takes no #fragment (${spec}).`, spec);
  return { kind: 'directory', spec, path: isAbsolute(location) ? location : resolve(cwd, location) };
}
