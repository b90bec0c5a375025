import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import {
  recordIssueCall,
  recordIssueValues,
  type RecordIssueValues,
  type TakenOnIssue,
} from '../../credentials/issuing/record-issue.js';
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
  /** Each credential's record, from `IssueRecorder.prepare`, in the order of `credentialIds`. */
  records: RecordIssueValues[];
}

/** What the statement found: each part absent when it was not there to take or read. */
export interface CredentialRequestTaken {
  /** Whether the nonce was there to spend: without it nothing was taken. */
  nonceFound: boolean;
  offer: IssuableOffer | undefined;
  key: StoredSigningKey | undefined;
  /** What each credential's status entries took, in order (empty when the offer was not taken). */
  taken: (TakenOnIssue | null)[];
}

interface TakenRow {
  nonceFound: boolean;
  recorded: (TakenOnIssue | null)[] | null;
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
 * The credential request's one statement (one round trip, docs/performance.md), in no transaction but
 * its own: the nonce locked, then, when it is there, the offer taken and marked issued (its row locked),
 * the nonce spent (deleted) and each credential recorded with its event and status entries; the
 * tenant's signing key read beside. Without the nonce nothing is taken; without the offer (withdrawn,
 * used, expired since `authorize`) the nonce stays and nothing is recorded (`spent`, data-modifying,
 * runs whether or not it is read). Of two requests with one
 * nonce, the second waits on its lock and then finds it gone. The offer, the key and the records are
 * oid4vci/offers/', did/'s and credentials/issuing/'s, through the functions they publish
 * (docs/architecture.md).
 */
function takeStatement(credentials: number) {
  const calls = Array.from({ length: credentials }, (_, n) => recordIssueCall(String(n)));
  return new NamedStatement<Record<string, unknown>>(`WITH nonce AS (
    SELECT nonce_hash FROM oid4vci_nonce
     WHERE nonce_hash = :nonceHash AND tenant_id = :tenantId AND expires_at > :now
       FOR UPDATE),
  taken AS MATERIALIZED (
    SELECT t.* FROM nonce
     CROSS JOIN LATERAL take_offer_for_issue(:offerId::uuid, :tokenHash, :now,
                                             :credentialIds::text[], :notificationId) AS t),
  spent AS (
    DELETE FROM oid4vci_nonce
     WHERE nonce_hash = :nonceHash AND tenant_id = :tenantId AND EXISTS (SELECT FROM taken)
    RETURNING 1),
  recorded AS MATERIALIZED (
    SELECT json_build_array(${calls.join(', ')}) AS recorded FROM taken)
  SELECT EXISTS (SELECT FROM nonce) AS "nonceFound", recorded.recorded,
         taken.configuration, taken.claims_sealed AS "claimsSealed",
         taken.claims_master_key_id AS "claimsMasterKeyId",
         taken.claims_unsealed AS "claimsUnsealed",
         key.kid, key.algorithm, key.public_jwk AS "publicJwk",
         key.private_key_sealed AS "privateKeySealed", key.master_key_id AS "masterKeyId"
    FROM (VALUES (true)) AS request (made)
    LEFT JOIN taken ON true
    LEFT JOIN recorded ON true
    LEFT JOIN tenant_signing_key_of(:tenantId, :keyAlgorithm) AS key ON true`);
}

/** The statement for one credential and a batch of two (OpenID4VCI's batch, maxHolderKeys); none: tests. */
const takeStatements = [0, 1, 2].map(takeStatement);

/**
 * The credential endpoint's statement over the wallet's nonces and, through what their owners
 * publish, the offer and the tenant's key.
 */
@Injectable()
export class CredentialRequestRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Runs the statement, on `manager`'s connection when given (a test's transaction). */
  async take(
    take: CredentialRequestTake,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<CredentialRequestTaken> {
    const { records, ...values } = take;
    const statement = takeStatements[records.length];
    if (statement === undefined || records.length !== take.credentialIds.length) {
      throw new Error(`one statement records up to ${takeStatements.length - 1} credentials`);
    }
    const named = Object.assign(
      values,
      ...records.map((record, n) => recordIssueValues(record, String(n))),
    ) as Record<string, unknown>;
    const [row] = await manager.query<TakenRow[]>(statement.text, statement.values(named));
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
    return { nonceFound: row.nonceFound, offer, key, taken: row.recorded ?? [] };
  }
}
