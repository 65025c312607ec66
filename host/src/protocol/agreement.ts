/**
 * Whether an initialize result agrees with a claim set (MEP 0.1, "When a session agrees with a
 * claim set"). A session may offer less than its claim set, never a kind or member the claim set
 * does not have, nor a different value for one it does. A refusal names the first rule that failed.
 */
import { capabilityKindsOf, type Capabilities } from './capabilities.ts';
import type { ClaimSet } from './claim-set.ts';
import type { InitializeResult } from './initialize.ts';
import { jsonEqual } from './json-equal.ts';

/** The outcome of {@link checkAgreement}: ok, or the first failed rule (1–4) and why. */
export type AgreementResult = { ok: true } | { ok: false; rule: 1 | 2 | 3 | 4; message: string };

/** Every capability member the session reports, as `[path, sessionValue, claimValue, claimHasIt]`. */
function* members(session: Capabilities, claims: Capabilities): Generator<[string, unknown, unknown, boolean]> {
  const kinds: readonly string[] = capabilityKindsOf(session);
  for (const [key, value] of Object.entries(session)) {
    if (value === undefined) continue;
    const claimed = (claims as Record<string, unknown>)[key];
    if (kinds.includes(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const claimedKind = (typeof claimed === 'object' && claimed !== null ? claimed : {}) as Record<string, unknown>;
      for (const [member, memberValue] of Object.entries(value as Record<string, unknown>)) {
        if (memberValue === undefined) continue;
        yield [`${key}.${member}`, memberValue, claimedKind[member], Object.prototype.hasOwnProperty.call(claimedKind, member)];
      }
    } else {
      // A session-level member (cancellation, progress, or one this reader does not know).
      yield [key, value, claimed, claimed !== undefined];
    }
  }
}

/**
 * Checks the four agreement rules in order: 1 identity (id, name, version) equal; 2 negotiated
 * protocolVersion among the claim set's; 3 every reported kind among `extension.types`; 4 every
 * reported capability member deep-equal to the claim set's value.
 *
 * @example
 * const agreement = checkAgreement(initResult, claims);
 * if (!agreement.ok) throw new MepError(LocalErrorCode.ClaimsMismatch, agreement.message);
 */
export function checkAgreement(init: InitializeResult, claims: ClaimSet): AgreementResult {
  const who = `Extension ${init.extension.id} ${init.extension.version}`;
  const fail = (rule: 1 | 2 | 3 | 4, detail: string): AgreementResult => ({
    ok: false,
    rule,
    message: `${who}: the initialize result does not agree with its claim set (rule ${rule}): ${detail}.`,
  });
  for (const field of ['id', 'name', 'version'] as const) {
    if (init.extension[field] !== claims.extension[field])
      return fail(1, `extension.${field} is ${JSON.stringify(init.extension[field])} in the session but ${JSON.stringify(claims.extension[field])} in the claim set`);
  }
  if (!claims.protocolVersions.includes(init.protocolVersion))
    return fail(2, `negotiated protocolVersion ${JSON.stringify(init.protocolVersion)} is not among the claimed ${JSON.stringify(claims.protocolVersions)}`);
  const types: readonly string[] = claims.extension.types;
  const extraKind = capabilityKindsOf(init.capabilities).find((kind) => !types.includes(kind));
  if (extraKind !== undefined) return fail(3, `the session reports capability kind ${JSON.stringify(extraKind)}, which is not among the claimed types ${JSON.stringify(types)}`);
  for (const [path, value, claimed, present] of members(init.capabilities, claims.capabilities)) {
    if (!present) return fail(4, `capabilities.${path} is reported by the session but absent from the claim set`);
    if (!jsonEqual(value, claimed))
      return fail(4, `capabilities.${path} is ${JSON.stringify(value)} in the session but ${JSON.stringify(claimed)} in the claim set`);
  }
  return { ok: true };
}
