import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { NamedStatement } from '../../database/named-parameters.js';
import { type StoredSigningKey } from '../../did/tenant-keys.service.js';
import { type IssuableOffer } from '../offers/offer-grants.service.js';

/** What the credential request takes, after its proofs are checked. */
export interface CredentialRequestTake {
  tenantId: string;
  nonceHash: Buffer;
  offerId: string;
  tokenHash: Buffer;
  now: Date;
  credentialIds: string[];
  notificationId: string;
  /** The algorithm of the tenant's signing key to read with it (ES256), or null for none. */
  keyAlgorithm: string | null;
}

/** What the statement found: each part absent when it was not there to take or read. */
export interface CredentialRequestTaken {
  nonceSpent: boolean;
  offer: IssuableOffer | undefined;
  key: StoredSigningKey | undefined;
}

interface TakenRow {
  nonceSpent: boolean;
  configuration: IssuableOffer['configuration'] | null;
  claimsSealed: Buffer | null;
  claimsMasterKeyId: string | null;
  claimsUnsealed: Record<string, unknown> | null;
  kid: string | null;
  algorithm: string | null;
  publicJwk: StoredSigningKey['publicJwk'] | null;
  privateKeySealed: Buffer | null;
  masterKeyId: string | null;
}

/*
 * The credential request's one statement before the issue (one round trip, docs/performance.md): the
 * nonce spent (deleted, so that of two requests with it one finds it, the other waiting on the row and
 * then finding nothing), the offer taken and marked issued (its row locked), and the tenant's signing
 * key read. The offer and the key are oid4vci/offers/' and did/'s, through the functions they publish
 * (docs/architecture.md); the caller's transaction undoes the whole when any part is missing.
 */
const takeStatement = new NamedStatement<Omit<CredentialRequestTake, never>>(`WITH spent AS (
    DELETE FROM oid4vci_nonce
     WHERE nonce_hash = :nonceHash AND tenant_id = :tenantId AND expires_at > :now
    RETURNING 1)
  SELECT EXISTS (SELECT FROM spent) AS "nonceSpent",
         taken.configuration, taken.claims_sealed AS "claimsSealed",
         taken.claims_master_key_id AS "claimsMasterKeyId",
         taken.claims_unsealed AS "claimsUnsealed",
         key.kid, key.algorithm, key.public_jwk AS "publicJwk",
         key.private_key_sealed AS "privateKeySealed", key.master_key_id AS "masterKeyId"
    FROM (VALUES (true)) AS request (made)
    LEFT JOIN take_offer_for_issue(:offerId::uuid, :tokenHash, :now, :credentialIds::text[],
                                   :notificationId) AS taken ON true
    LEFT JOIN tenant_signing_key_of(:tenantId, :keyAlgorithm) AS key ON true`);

/**
 * The credential endpoint's statement over the wallet's nonces and, through what their owners
 * publish, the offer and the tenant's key.
 */
@Injectable()
export class CredentialRequestRepository {
  async take(manager: EntityManager, take: CredentialRequestTake): Promise<CredentialRequestTaken> {
    const [row] = await manager.query<TakenRow[]>(takeStatement.text, takeStatement.values(take));
    const offer: IssuableOffer | undefined =
      row.configuration === null
        ? undefined
        : {
            configuration: row.configuration,
            claimsSealed: row.claimsSealed,
            claimsMasterKeyId: row.claimsMasterKeyId,
            claimsUnsealed: row.claimsUnsealed,
          };
    const key: StoredSigningKey | undefined =
      row.kid === null
        ? undefined
        : {
            kid: row.kid,
            algorithm: row.algorithm!,
            publicJwk: row.publicJwk!,
            privateKeySealed: row.privateKeySealed!,
            masterKeyId: row.masterKeyId!,
          };
    return { nonceSpent: row.nonceSpent, offer, key };
  }
}
