import { nonDisclosableClaims } from '../../credentials/sd-jwt/disclosure-frame.js';
import { type VerifiedPresentation } from '../../credentials/verifying/wallet-presentations.service.js';

/**
 * What the API shows and keeps of a verified credential: the subject's claims the wallet disclosed,
 * without the credential's own fields (an SD-JWT VC's `iss`, `iat`, `vct`, `status`, ...: the summary
 * says them) and, for a W3C VC, its `credentialSubject` alone.
 */
export function disclosedClaimsOf(presented: VerifiedPresentation): Record<string, unknown> {
  if (presented.format === 'ldp_vc')
    return { credentialSubject: presented.claims.credentialSubject };
  // An mdoc's presented elements by namespace: the MSO's own fields are never among them.
  if (presented.format === 'mso_mdoc') return presented.claims;
  return Object.fromEntries(
    Object.entries(presented.claims).filter(
      ([name]) => name !== 'iat' && !nonDisclosableClaims.has(name),
    ),
  );
}
