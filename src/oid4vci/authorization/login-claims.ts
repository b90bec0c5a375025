import { DomainException } from '../../common/problem/domain.exception.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { checkClaims } from '../offers/offer.rules.js';

/** Why a login does not get a code (docs/oid4vci.md): told to the wallet, and in the event. */
export type LoginRefusal = { reason: 'subject_mismatch' | 'missing_claims'; description: string };

/**
 * The credential's claims from the login (docs/oid4vci.md, `claimsFromLogin`): each mapped claim the
 * login gave, over the offer's own claims (the login wins on a claim both set: it is what the person
 * just proved). Refused when the offer pins another person, or the result lacks what the configuration
 * needs; the refusal names claims, never their values.
 */
export function credentialClaimsOf(
  login: Record<string, unknown>,
  definition: ConfigurationDefinition,
  offer: { claims: Record<string, unknown>; subject: string | null },
): { claims: Record<string, unknown> } | { refusal: LoginRefusal } {
  if (offer.subject !== null && !isPerson(login, offer.subject))
    return {
      refusal: {
        reason: 'subject_mismatch',
        description: 'This credential offer is for another person than the one who logged in.',
      },
    };
  const fromLogin: Record<string, unknown> = {};
  for (const [credentialClaim, loginClaim] of Object.entries(definition.claimsFromLogin ?? {}))
    if (Object.hasOwn(login, loginClaim) && login[loginClaim] !== null)
      fromLogin[credentialClaim] = login[loginClaim];
  const claims = { ...offer.claims, ...fromLogin };
  try {
    checkClaims(claims, definition);
  } catch (error) {
    if (!(error instanceof DomainException)) throw error;
    return {
      refusal: {
        reason: 'missing_claims',
        description: `The login did not give what this credential needs: ${error.message}.`,
      },
    };
  }
  return { claims };
}

/** The login names the person by `sub` or `preferred_username` (OpenID Connect Core §5.1). */
function isPerson(login: Record<string, unknown>, subject: string): boolean {
  return login.sub === subject || login.preferred_username === subject;
}
