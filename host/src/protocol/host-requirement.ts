/**
 * `requires.host`: the single SemVer comparators a claim set places on the host version. This is
 * the only file of `protocol/` that uses the semver package.
 *
 * MEP 0.1, Capability claims: `requires.host` is a list of single comparators, such as
 * [">=0.4.0-alpha.7", "<0.5.0"], all of which must hold; combined range strings are not used
 * because the Rust semver crate and @std/semver split them differently. A host outside the range
 * refuses and names the range.
 */
import Comparator from 'semver/classes/comparator.js';
import SemVer from 'semver/classes/semver.js';
import { HOST_COMPARATOR, type ClaimSet } from './claim-set.ts';

/** The outcome of {@link checkHostRequirement}: ok, or the refusal naming the range. */
export type HostRequirementResult =
  | { ok: true }
  | {
      ok: false;
      /** The whole `requires.host` list, as claimed. */
      range: string[];
      /** The comparator that failed or could not be read; absent when the host version is unreadable. */
      comparator?: string;
      /** A message naming the extension, the range and the host version. */
      message: string;
    };


function parseVersion(text: string): SemVer | undefined {
  try {
    return new SemVer(text);
  } catch {
    return undefined; // an unreadable version is reported by the caller, naming it
  }
}

function parseComparator(text: string): Comparator | undefined {
  const match = HOST_COMPARATOR.exec(text.trim());
  if (match === null || parseVersion(match[2]) === undefined) return undefined;
  return new Comparator(`${match[1]}${match[2]}`);
}

/**
 * Checks `claims.requires.host` against the host's version: every comparator must parse and hold.
 * As in the Rust semver crate and node-semver, a prerelease host version satisfies the list only
 * when some comparator names a prerelease of the same major.minor.patch.
 *
 * @example
 * const verdict = checkHostRequirement(claims, '0.4.0');
 * if (!verdict.ok) throw new MepError(LocalErrorCode.HostVersion, verdict.message);
 */
export function checkHostRequirement(claims: ClaimSet, hostVersion: string): HostRequirementResult {
  const range = claims.requires?.host ?? [];
  if (range.length === 0) return { ok: true };
  const who = `Extension ${claims.extension.id} ${claims.extension.version}`;
  const shown = JSON.stringify(range);
  const host = /^\d+\.\d+\.\d+/.test(hostVersion) ? parseVersion(hostVersion) : undefined;
  if (host === undefined) return { ok: false, range, message: `${who} requires host ${shown}, and this host's version ${JSON.stringify(hostVersion)} is not a SemVer version.` };
  let prereleaseAllowed = host.prerelease.length === 0;
  for (const text of range) {
    const comparator = parseComparator(text);
    if (comparator === undefined)
      return {
        ok: false,
        range,
        comparator: text,
        message: `${who} requires host ${shown}, and ${JSON.stringify(text)} is not a single SemVer comparator (>=, >, <=, <, = followed by a full version). Ask the extension author to fix requires.host.`,
      };
    if (!comparator.test(host))
      return {
        ok: false,
        range,
        comparator: text,
        message: `${who} requires host ${shown}; this host is ${host.version}, outside ${JSON.stringify(text)}. Use a host in that range or another extension version.`,
      };
    const v = comparator.semver;
    if (v.prerelease.length > 0 && v.major === host.major && v.minor === host.minor && v.patch === host.patch) prereleaseAllowed = true;
  }
  if (!prereleaseAllowed)
    return {
      ok: false,
      range,
      message: `${who} requires host ${shown}; this host is the prerelease ${host.version}, and no comparator names a prerelease of ${host.major}.${host.minor}.${host.patch}. Use a released host in that range.`,
    };
  return { ok: true };
}
