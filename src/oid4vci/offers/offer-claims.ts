import { type KeyVault } from '../../secrets/key-vault.js';

/** The KeyVault purpose of an offer's claims (`oid4vci_offer.claims_sealed`), sealed for the offer's id. */
export const offerClaimsPurpose = 'oid4vci-offer-claims';

/** The subject's claims as the offer keeps them: JSON, sealed with the offer's id as owner. */
export function sealClaims(
  vault: KeyVault,
  offerId: string,
  claims: Record<string, unknown>,
): Buffer {
  return vault.sealJson(offerId, claims, offerClaimsPurpose);
}

/** The offer's claims opened; those of an offer made before claims were sealed are as they were. */
export function openClaims(
  vault: KeyVault,
  offerId: string,
  stored: {
    claimsSealed: Buffer | null;
    claimsMasterKeyId: string | null;
    claimsUnsealed: Record<string, unknown> | null;
  },
): Record<string, unknown> | null {
  if (stored.claimsSealed === null) return stored.claimsUnsealed;
  return vault.openJson(offerId, stored.claimsSealed, offerClaimsPurpose, stored.claimsMasterKeyId);
}
