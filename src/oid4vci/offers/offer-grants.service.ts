import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { type ChangeStatement } from '../../events/event-outbox.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { type OfferStatus } from './offer.entity.js';

export type { OfferStatus } from './offer.entity.js';

/** What the token endpoint reads of the offer a pre-authorized code names. */
export interface GrantedOffer {
  id: string;
  status: OfferStatus;
  configurationId: string;
  expiresAt: Date;
  txCodeHash: Buffer | null;
}

/** What the authorization code flow reads of the offer an `issuer_state` names. */
export interface AuthorizationOffer {
  id: string;
  status: OfferStatus;
  configurationId: string;
  configuration: ConfigurationDefinition;
  expiresAt: Date;
  subject: string | null;
  claimsSealed: Buffer | null;
  claimsMasterKeyId: string | null;
}

/** Claims sealed for an offer (offer-claims.ts) under a master key. */
export interface SealedClaims {
  sealed: Buffer;
  masterKeyId: string;
}

/** What the credential and notification endpoints read of the offer an access token names. */
export interface TokenOffer {
  id: string;
  tenantId: string;
  status: OfferStatus;
  configurationId: string;
  /** The configuration's format: `dc+sd-jwt` binds to JWKs only, `ldp_vc` to DIDs too. */
  format: string;
  /** The configuration's JOSE algorithm (dc+sd-jwt): ES256 signs with a certified key. */
  signingAlgorithm: string | null;
  /** The offer's own end: an access token outliving it grants nothing. */
  expiresAt: Date;
  accessTokenExpiresAt: Date;
  dpopJkt: string | null;
  notificationId: string | null;
  credentialIds: string[];
}

/** The tenant's active certificate, read with the offer for the credential request's `x5c`. */
export interface OfferIssuerCertificate {
  x5c: string[];
  notBefore: Date;
  notAfter: Date;
}

/** A credential request's offer: the token's, with the tenant's active certificate if it has one. */
export interface CredentialRequestOffer extends TokenOffer {
  /** The configuration the offer was made with, which its credentials' records name. */
  configuration: ConfigurationDefinition;
  certificate: OfferIssuerCertificate | undefined;
  /** The configuration's key attestation requirement as it is now (Appendix D.1); null: none. */
  keyAttestationsRequired: { key_storage?: string[]; user_authentication?: string[] } | null;
}

/** What `TokenOffer` reads of the offer `o`. */
const tokenOfferColumns = `o.id, o.tenant_id AS "tenantId", o.status,
       o.configuration_id AS "configurationId", o.configuration->>'format' AS "format",
       o.configuration->>'signingAlgorithm' AS "signingAlgorithm", o.expires_at AS "expiresAt",
       o.access_token_expires_at AS "accessTokenExpiresAt", o.dpop_jkt AS "dpopJkt",
       o.notification_id AS "notificationId", o.credential_ids AS "credentialIds"`;

/** The offer locked for issuance: the configuration it was made with and the subject's claims. */
export interface IssuableOffer {
  configuration: ConfigurationDefinition;
  claimsSealed: Buffer | null;
  claimsMasterKeyId: string | null;
  /** An offer made before claims were sealed, not sealed yet. */
  claimsUnsealed: Record<string, unknown> | null;
}

/** A new access token of an offer, by its hash (OpenID4VCI 1.0 §6.2). */
export interface AccessGrant {
  accessTokenHash: Buffer;
  expiresAt: Date;
  dpopJkt: string | null;
  /** 1 when a transaction-code try was counted before the code was checked and is given back now. */
  refundedTries: 0 | 1;
  now: Date;
}

/*
 * Published for the credential request's statement (oid4vci/wallet/, docs/architecture.md), the
 * offer's one issue: `take_offer_for_issue(offer, token hash, now, credential ids, notification id)`
 * takes the accepted offer, still this token's and open at `now`, under its row lock, marks it issued
 * with the credentials' and notification's ids and drops its claims, answering what was there
 * (`IssuableOffer`); no row once another request took it or it was withdrawn or ran out meanwhile
 * (migrations/1795800640000-offer-taken-by-key.ts).
 */

/**
 * The offer's steps the wallet's endpoints drive (src/oid4vci/wallet/): the pre-authorized code, the
 * transaction-code tries, the access token and the notification (the one issue is the function
 * `take_offer_for_issue`, which the credential request's statement calls). The offers folder owns
 * the table (its statements for the offers API are `OfferRepository`'s); this is its door for the
 * wallet side, each step one statement (the wallet paths are measured, docs/performance.md), each
 * change conditional on the offer's status so that concurrent requests make it once.
 */
@Injectable()
export class OfferGrantsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The tenant's offer a pre-authorized code names, by the code's hash. */
  async findByCode(tenantId: string, codeHash: Buffer): Promise<GrantedOffer | undefined> {
    const rows: GrantedOffer[] = await this.dataSource.query(
      `SELECT id, status, configuration_id AS "configurationId", expires_at AS "expiresAt",
              tx_code_hash AS "txCodeHash"
         FROM oid4vci_offer
        WHERE pre_authorized_code_hash = $1 AND tenant_id = $2
          AND grant_type = 'pre-authorized_code'`,
      [codeHash, tenantId],
    );
    return rows[0];
  }

  /**
   * Counts a transaction-code try before the code is checked, so that parallel guesses cannot exceed
   * `maxTries`; answers the tries counted with this one, or undefined when none is left.
   */
  async countTxCodeTry(id: string, maxTries: number): Promise<number | undefined> {
    // The row by its id alone, tested once locked (docs/performance.md, "Keyed statements").
    const [rows] = await this.dataSource.query<[{ tries: number }[], number]>(
      `UPDATE oid4vci_offer SET tx_code_failures = tx_code_failures + 1, updated_at = now()
        WHERE id = $1
          AND (SELECT o.status = 'offered' AND o.tx_code_failures < $2
                 FROM oid4vci_offer o WHERE o.id = $1 FOR NO KEY UPDATE)
        RETURNING tx_code_failures AS "tries"`,
      [id, maxTries],
    );
    return rows[0]?.tries;
  }

  /** The offer's last try failed: it ends, and the claims it held go (docs/oid4vci.md). */
  async failTxCodeTries(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE oid4vci_offer
          SET status = 'failed', failure = 'tx_code_tries', claims_sealed = NULL,
              claims_master_key_id = NULL, claims_unsealed = NULL, updated_at = now()
        WHERE id = $1
          AND (SELECT o.status = 'offered' FROM oid4vci_offer o WHERE o.id = $1 FOR NO KEY UPDATE)`,
      [id],
    );
  }

  /** The code's single use: `offered` to `accepted` with the token, for `EventOutbox.withChange`. */
  acceptStatement(id: string, grant: AccessGrant): ChangeStatement {
    return {
      // The row by its id alone, tested once locked (docs/performance.md, "Keyed statements").
      sql: `UPDATE oid4vci_offer
               SET status = 'accepted', access_token_hash = $2, access_token_expires_at = $3,
                   dpop_jkt = $4, tx_code_failures = tx_code_failures - $5, updated_at = now()
             WHERE id = $1
               AND (SELECT o.status = 'offered' AND o.expires_at > $6
                      FROM oid4vci_offer o WHERE o.id = $1 FOR NO KEY UPDATE)
             RETURNING id`,
      parameters: [
        id,
        grant.accessTokenHash,
        grant.expiresAt,
        grant.dpopJkt,
        grant.refundedTries,
        grant.now,
      ],
    };
  }

  /** The tenant's authorization code offer an `issuer_state` names, with its sealed claims. */
  findByIssuerState(
    tenantId: string,
    issuerStateHash: Buffer,
  ): Promise<AuthorizationOffer | undefined> {
    return this.authorizationOffer('pre_authorized_code_hash', tenantId, issuerStateHash);
  }

  /** The same by the offer's id, once the authorization holds it. */
  findById(tenantId: string, id: string): Promise<AuthorizationOffer | undefined> {
    return this.authorizationOffer('id', tenantId, id);
  }

  private async authorizationOffer(
    by: 'id' | 'pre_authorized_code_hash',
    tenantId: string,
    value: string | Buffer,
  ): Promise<AuthorizationOffer | undefined> {
    const rows: AuthorizationOffer[] = await this.dataSource.query(
      `SELECT id, status, configuration_id AS "configurationId", configuration,
              expires_at AS "expiresAt", subject, claims_sealed AS "claimsSealed",
              claims_master_key_id AS "claimsMasterKeyId"
         FROM oid4vci_offer
        WHERE ${by} = $1 AND tenant_id = $2 AND grant_type = 'authorization_code'`,
      [value, tenantId],
    );
    return rows[0];
  }

  /**
   * The authorization code's single use of its offer: `offered` to `accepted` with the token and the
   * claims of the login, for `EventOutbox.withChange`.
   */
  acceptWithClaimsStatement(id: string, grant: AccessGrant, claims: SealedClaims): ChangeStatement {
    return {
      // As acceptStatement's: the row by its id alone, tested once locked.
      sql: `UPDATE oid4vci_offer
               SET status = 'accepted', access_token_hash = $2, access_token_expires_at = $3,
                   dpop_jkt = $4, claims_sealed = $5, claims_master_key_id = $6,
                   claims_unsealed = NULL, updated_at = now()
             WHERE id = $1
               AND (SELECT o.status = 'offered' AND o.expires_at > $7
                           AND o.grant_type = 'authorization_code'
                      FROM oid4vci_offer o WHERE o.id = $1 FOR NO KEY UPDATE)
             RETURNING id`,
      parameters: [
        id,
        grant.accessTokenHash,
        grant.expiresAt,
        grant.dpopJkt,
        claims.sealed,
        claims.masterKeyId,
        grant.now,
      ],
    };
  }

  /** The offer an access token was made for, by the token's hash. */
  async findByAccessToken(tokenHash: Buffer): Promise<TokenOffer | undefined> {
    const rows: TokenOffer[] = await this.dataSource.query(
      `SELECT ${tokenOfferColumns} FROM oid4vci_offer o WHERE o.access_token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  }

  /**
   * The offer an access token was made for, with the tenant's active certificate in the same round
   * trip (certificates/ publishes `active_certificate_of`, docs/architecture.md): the chain an ES256
   * credential carries, read before the issuing transaction as it must be; and its configuration's
   * key attestation requirement as it is now (docs/wallet-providers.md).
   */
  async findForCredentialRequest(tokenHash: Buffer): Promise<CredentialRequestOffer | undefined> {
    const rows: (Omit<CredentialRequestOffer, 'certificate'> & {
      x5c: string[] | null;
      notBefore: Date;
      notAfter: Date;
    })[] = await this.dataSource.query(
      `SELECT ${tokenOfferColumns}, o.configuration,
              c.x5c, c.not_before AS "notBefore", c.not_after AS "notAfter",
              (SELECT k.key_attestations_required FROM oid4vci_credential_configuration k
                WHERE k.tenant_id = o.tenant_id AND k.configuration_id = o.configuration_id)
                AS "keyAttestationsRequired"
         FROM oid4vci_offer o
         LEFT JOIN active_certificate_of(o.tenant_id) c ON true
        WHERE o.access_token_hash = $1`,
      [tokenHash],
    );
    if (rows.length === 0) return undefined;
    const { x5c, notBefore, notAfter, ...offer } = rows[0];
    return { ...offer, certificate: x5c === null ? undefined : { x5c, notBefore, notAfter } };
  }

  /** The wallet's notification event recorded, for `EventOutbox.withChange` (§11). */
  notifyStatement(id: string, notificationId: string, event: string): ChangeStatement {
    return {
      sql: `UPDATE oid4vci_offer SET notification = $3, updated_at = now()
             WHERE id = $1 AND notification_id = $2 AND status = 'issued'
             RETURNING id`,
      parameters: [id, notificationId, event],
    };
  }
}
