import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { type ChangeStatement } from '../../events/event-outbox.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { type OfferStatus } from '../offers/offer.entity.js';

/** What the token endpoint reads of the offer a pre-authorized code names. */
export interface GrantedOffer {
  id: string;
  status: OfferStatus;
  configurationId: string;
  expiresAt: Date;
  txCodeHash: Buffer | null;
}

/** What the credential and notification endpoints read of the offer an access token names. */
export interface TokenOffer {
  id: string;
  tenantId: string;
  status: OfferStatus;
  configurationId: string;
  /** The configuration's format: `dc+sd-jwt` binds to JWKs only, `ldp_vc` to DIDs too. */
  format: string;
  accessTokenExpiresAt: Date;
  dpopJkt: string | null;
  notificationId: string | null;
  credentialIds: string[];
}

/** The offer locked for issuance: the configuration it was made with and the subject's claims. */
export interface IssuableOffer {
  configuration: ConfigurationDefinition;
  claims: Record<string, unknown> | null;
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

/**
 * The wallet side of `oid4vci_offer`: the pre-authorized code grant, the access token and the
 * notification, each change conditional on the offer's status so that concurrent requests change it
 * once (docs/oid4vci.md).
 */
@Injectable()
export class OfferGrantsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async findByCode(tenantId: string, codeHash: Buffer): Promise<GrantedOffer | undefined> {
    const rows: GrantedOffer[] = await this.dataSource.query(
      `SELECT id, status, configuration_id AS "configurationId", expires_at AS "expiresAt",
              tx_code_hash AS "txCodeHash"
         FROM oid4vci_offer WHERE pre_authorized_code_hash = $1 AND tenant_id = $2`,
      [codeHash, tenantId],
    );
    return rows[0];
  }

  /**
   * Counts a transaction-code try before the code is checked, so that parallel guesses cannot exceed
   * `maxTries`; answers the tries counted with this one, or undefined when none is left.
   */
  async countTxCodeTry(id: string, maxTries: number): Promise<number | undefined> {
    const [rows] = await this.dataSource.query<[{ tries: number }[], number]>(
      `UPDATE oid4vci_offer SET tx_code_failures = tx_code_failures + 1, updated_at = now()
        WHERE id = $1 AND status = 'offered' AND tx_code_failures < $2
        RETURNING tx_code_failures AS "tries"`,
      [id, maxTries],
    );
    return rows[0]?.tries;
  }

  /** The offer's last try failed: it ends, and the claims it held go (docs/oid4vci.md). */
  async failTxCodeTries(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE oid4vci_offer SET status = 'failed', failure = 'tx_code_tries', claims = NULL,
              updated_at = now()
        WHERE id = $1 AND status = 'offered'`,
      [id],
    );
  }

  /** The code's single use: `offered` to `accepted` with the token, for `EventOutbox.withChange`. */
  acceptStatement(id: string, grant: AccessGrant): ChangeStatement {
    return {
      sql: `UPDATE oid4vci_offer
               SET status = 'accepted', access_token_hash = $2, access_token_expires_at = $3,
                   dpop_jkt = $4, tx_code_failures = tx_code_failures - $5, updated_at = now()
             WHERE id = $1 AND status = 'offered' AND expires_at > $6
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

  async findByAccessToken(tokenHash: Buffer): Promise<TokenOffer | undefined> {
    const rows: TokenOffer[] = await this.dataSource.query(
      `SELECT id, tenant_id AS "tenantId", status, configuration_id AS "configurationId",
              configuration->>'format' AS "format",
              access_token_expires_at AS "accessTokenExpiresAt", dpop_jkt AS "dpopJkt",
              notification_id AS "notificationId", credential_ids AS "credentialIds"
         FROM oid4vci_offer WHERE access_token_hash = $1`,
      [tokenHash],
    );
    return rows[0];
  }

  /** Locks the accepted offer for its one credential request; undefined once another took it. */
  async lockAccepted(
    manager: EntityManager,
    id: string,
    tokenHash: Buffer,
  ): Promise<IssuableOffer | undefined> {
    const rows: IssuableOffer[] = await manager.query(
      `SELECT configuration, claims FROM oid4vci_offer
        WHERE id = $1 AND access_token_hash = $2 AND status = 'accepted' FOR UPDATE`,
      [id, tokenHash],
    );
    return rows[0];
  }

  /** The credentials are issued: the claims go, the wallet gets a notification id (§8.3). */
  async markIssued(
    manager: EntityManager,
    id: string,
    credentialIds: string[],
    notificationId: string,
  ): Promise<void> {
    await manager.query(
      `UPDATE oid4vci_offer
          SET status = 'issued', credential_ids = $2, notification_id = $3, claims = NULL,
              updated_at = now()
        WHERE id = $1 AND status = 'accepted'`,
      [id, credentialIds, notificationId],
    );
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
