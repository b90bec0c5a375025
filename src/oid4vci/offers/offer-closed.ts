import { type OfferStatus } from './offer.entity.js';

/**
 * What the person holding the wallet is told when an offer that really was ours is no longer open, in
 * words they can act on. Only a reference or code that named an offer gets it (holding one proves the
 * link reached them); an unknown one keeps the generic answer, so guessing learns nothing.
 */
export function closedOfferDescription(
  status: OfferStatus,
  expiresAt: Date,
  now: number,
): string | undefined {
  const open = status === 'offered' || status === 'accepted';
  if (open && expiresAt.getTime() <= now) return closedOfferDescriptions.expired;
  switch (status) {
    case 'offered':
      return undefined;
    case 'accepted':
    case 'issued':
      return closedOfferDescriptions.used;
    case 'expired':
      return closedOfferDescriptions.expired;
    case 'failed':
      return closedOfferDescriptions.failed;
    case 'withdrawn':
      return closedOfferDescriptions.withdrawn;
  }
}

export const closedOfferDescriptions = {
  expired: 'This credential offer has expired. Ask the issuer for a new one.',
  used: 'This credential offer has already been used. Ask the issuer for a new one.',
  failed:
    'This credential offer was closed after too many wrong transaction codes. Ask the issuer for a new one.',
  withdrawn: 'The issuer has withdrawn this credential offer. Ask the issuer for a new one.',
} as const;
