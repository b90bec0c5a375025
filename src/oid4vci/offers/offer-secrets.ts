import { createHash, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { type KeyVault } from '../../secrets/key-vault.js';
import { type OfferEntity } from './offer.entity.js';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: string,
  length: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** What an offer seals for its tenant (`oid4vci_offer.secrets_sealed`), as JSON. */
export interface OfferSecrets {
  preAuthorizedCode: string;
  /** The random last segment of the offer's `credential_offer_uri`. */
  reference: string;
}

/** The KeyVault purpose of an offer's sealed secrets. */
export const offerSecretsPurpose = 'oid4vci-offer-secrets';

/** The code and reference sealed for the offer's tenant (`secrets_sealed`), to serve the offer again. */
export function sealOfferSecrets(vault: KeyVault, tenantId: string, secrets: OfferSecrets): Buffer {
  return vault.sealJson(tenantId, secrets, offerSecretsPurpose);
}

/** An offer's code and reference, opened under the master key recorded with them. */
export function openOfferSecrets(
  vault: KeyVault,
  row: Pick<OfferEntity, 'tenantId' | 'secretsSealed' | 'masterKeyId'>,
): OfferSecrets {
  return vault.openJson(row.tenantId, row.secretsSealed, offerSecretsPurpose, row.masterKeyId);
}

/** How codes, references and access tokens are found: by their SHA-256 (they are 256-bit random). */
export function secretHash(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * A transaction code is short (a few digits), so a plain hash would give it away to whoever reads the
 * table: scrypt (RFC 7914), salted with the offer's id, costs about 16 MiB and tens of milliseconds.
 */
const txCodeCost = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

export function txCodeHash(offerId: string, txCode: string): Promise<Buffer> {
  return scryptAsync(txCode, `oid4vci-tx-code:${offerId}`, 32, txCodeCost);
}

/** Whether `given` is the offer's transaction code, compared in constant time. */
export async function isTxCode(offerId: string, given: string, stored: Buffer): Promise<boolean> {
  const hash = await txCodeHash(offerId, given);
  return hash.length === stored.length && timingSafeEqual(hash, stored);
}
