/**
 * The capability claim set (morphir.extension.describe) and the reader rules that guard it.
 *
 * MEP 0.1, Capability claims and Version numbers: `extension.types` is checked strictly (an
 * unknown kind is an error); `capabilities` are carried unchanged; a `critical` path this reader
 * does not understand is refused by name; a prerelease `claimsVersion` matches only exactly. A
 * draft.1 document (`statementVersion`) is still read and converted to draft.2.
 */
import * as z from 'zod';
import { CAPABILITY_KINDS, Capabilities, CapabilityKind, capabilityKindsOf } from './capabilities.ts';
import { LocalErrorCode, MepError } from './errors.ts';
import { toDecodeIssues } from './decode.ts';
import { ExtensionIdentity, type InitializeResult } from './initialize.ts';
import { checkMetadataBounds } from './metadata-bounds.ts';
import { CLAIMS_VERSION, STATEMENT_VERSION_DRAFT_1 } from './methods.ts';

/** Params of morphir.extension.describe: the protocol versions the caller understands. */
export const DescribeParams = z.looseObject({
  protocolVersions: z.array(z.string()),
});
/** Params of morphir.extension.describe. */
export type DescribeParams = z.infer<typeof DescribeParams>;

/**
 * The shape of one `requires.host` comparator: an operator and a full version, such as
 * `>=0.4.0-alpha.7`. Only the operators whose meaning is identical in node-semver, the Rust
 * semver crate and @std/semver: a bare version is refused (Rust reads "1.2.3" as "^1.2.3",
 * node-semver as "=1.2.3"), and so are caret, tilde, wildcards and hyphen ranges.
 */
export const HOST_COMPARATOR = /^(>=|<=|>|<|=)\s*(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$/;

/** What a claim set requires of its environment; `host` is a list of single SemVer comparators. */
export const ClaimRequirements = z.looseObject({
  host: z.array(z.string()).optional(),
});
/** What a claim set requires of its environment. */
export type ClaimRequirements = z.infer<typeof ClaimRequirements>;

/** A draft.2 capability claim set, the result of morphir.extension.describe. */
export const ClaimSet = z.looseObject({
  claimsVersion: z.string(),
  protocolVersions: z.array(z.string()),
  extension: ExtensionIdentity.extend({ types: z.array(CapabilityKind) }),
  capabilities: Capabilities,
  requires: ClaimRequirements.optional(),
  critical: z.array(z.string()).optional(),
});
/** A draft.2 capability claim set. */
export type ClaimSet = z.infer<typeof ClaimSet>;

/** The `critical` member paths this reader understands, and therefore may accept. */
export const UNDERSTOOD_CRITICAL_PATHS: readonly string[] = ['requires.host'];

function refuse(message: string, data: Record<string, unknown>): never {
  throw new MepError(LocalErrorCode.ClaimsMismatch, message, { data });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns the document in draft.2 spelling, converting draft.1; refuses any other version. */
function toDraft2(doc: Record<string, unknown>): Record<string, unknown> {
  const hasStatement = 'statementVersion' in doc;
  const hasClaims = 'claimsVersion' in doc;
  if (hasStatement && hasClaims) refuse('Claim set states both statementVersion (draft.1) and claimsVersion (draft.2); a document has one.', {});
  if (hasStatement) {
    const { statementVersion, ...rest } = doc;
    // MEP 0.1, Version numbers: a prerelease matches only exactly.
    if (statementVersion !== STATEMENT_VERSION_DRAFT_1)
      refuse(`Capability statement version ${JSON.stringify(statementVersion)} is not supported; this host reads ${STATEMENT_VERSION_DRAFT_1} and ${CLAIMS_VERSION}.`, {
        statementVersion,
      });
    return { claimsVersion: CLAIMS_VERSION, ...rest };
  }
  if (!hasClaims) refuse(`Claim set has no claimsVersion; this host reads ${CLAIMS_VERSION} (and draft.1 statementVersion documents).`, {});
  if (doc.claimsVersion !== CLAIMS_VERSION)
    refuse(`Claim set version ${JSON.stringify(doc.claimsVersion)} is not supported; this host reads ${CLAIMS_VERSION} (drafts match only exactly). Update the host or use a matching extension release.`, {
      claimsVersion: doc.claimsVersion,
    });
  return doc;
}

/**
 * Reads a claim set document (draft.2, or draft.1 converted to draft.2) and applies the reader
 * rules. Throws MepError(ERR_CLAIMS_MISMATCH) naming the unsupported version, the unknown kind
 * (`data.kind`), the not-understood critical path (`data.path`) or the malformed members
 * (`data.issues`); ERR_LIMIT for a document longer, deeper or wider than the host stores
 * (metadata-bounds.ts).
 *
 * @example
 * const claims = parseClaimSet(describeResponse.result);
 */
export function parseClaimSet(doc: unknown): ClaimSet {
  if (!isRecord(doc)) refuse('Claim set is not a JSON object.', {});
  // Bounded before anything else reads it: a claim set is pinned in the lock that every command reads.
  const named = isRecord(doc.extension) && typeof doc.extension.id === 'string' ? doc.extension.id.slice(0, 128) : 'unknown';
  checkMetadataBounds(doc, 'The claim set', named);
  const draft2 = toDraft2(doc);
  const extension = draft2.extension;
  const types = isRecord(extension) && Array.isArray(extension.types) ? extension.types : [];
  const known: readonly unknown[] = CAPABILITY_KINDS;
  const unknownKind = types.find((t) => !known.includes(t));
  if (unknownKind !== undefined) {
    const who = isRecord(extension) && typeof extension.id === 'string' ? `Extension ${extension.id}` : 'The extension';
    refuse(`${who} claims capability kind ${JSON.stringify(unknownKind)}, which this host does not know (known: ${CAPABILITY_KINDS.join(', ')}). Update the host.`, {
      kind: unknownKind,
    });
  }
  const critical = Array.isArray(draft2.critical) ? draft2.critical : [];
  const notUnderstood = critical.find((p) => typeof p === 'string' && !UNDERSTOOD_CRITICAL_PATHS.includes(p));
  if (notUnderstood !== undefined)
    refuse(`Claim set marks ${JSON.stringify(notUnderstood)} critical, and this host does not understand it (it understands: ${UNDERSTOOD_CRITICAL_PATHS.join(', ')}). Update the host.`, {
      path: notUnderstood,
    });
  const parsed = ClaimSet.safeParse(draft2);
  if (!parsed.success) {
    const issues = toDecodeIssues(parsed.error);
    const first = issues[0];
    refuse(`Claim set is malformed: ${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}.`, { issues });
  }
  return parsed.data;
}

/**
 * The claim set a host builds from a session when describe is unavailable (MEP 0.1, describe
 * fallback): only the negotiated protocol version, kinds derived from the capabilities present,
 * the capabilities unchanged, and no `requires` or `critical`.
 */
export function claimSetFromSession(init: InitializeResult): ClaimSet {
  const { id, name, version } = init.extension;
  return {
    claimsVersion: CLAIMS_VERSION,
    protocolVersions: [init.protocolVersion],
    extension: { id, name, version, types: capabilityKindsOf(init.capabilities) },
    capabilities: init.capabilities,
  };
}
