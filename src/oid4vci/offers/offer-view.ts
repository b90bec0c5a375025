import { type OfferDto } from './dto/offer-answer.dto.js';
import { type OfferEntity, type OfferStatus } from './offer.entity.js';

/** An open offer past its time reads as expired before the expiry job marks it. */
export function statusOf(row: OfferEntity, now: number): OfferStatus {
  const open = row.status === 'offered' || row.status === 'accepted';
  return open && row.expiresAt.getTime() <= now ? 'expired' : row.status;
}

/** The offer as the API shows it at `now`. */
export function viewOf(row: OfferEntity, now: number): OfferDto {
  return {
    id: row.id,
    status: statusOf(row, now),
    credentialConfigurationId: row.configurationId,
    format: row.configuration.format,
    doctype: row.configuration.doctype ?? null,
    credentialIds: row.credentialIds,
    txCodeRequired: row.txCode !== null,
    grant: row.grantType,
    notification: row.notification,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
