import { Injectable } from '@nestjs/common';
import { type ChangeStatement } from '../../events/event-outbox.js';
import {
  OfferRepository,
  type AccessGrant,
  type AuthorizationOffer,
  type CredentialRequestOffer,
  type GrantedOffer,
  type IssuableOffer,
  type OfferIssuerCertificate,
  type SealedClaims,
  type TokenOffer,
} from './offer.repository.js';

export type {
  AccessGrant,
  AuthorizationOffer,
  CredentialRequestOffer,
  GrantedOffer,
  IssuableOffer,
  OfferIssuerCertificate,
  SealedClaims,
  TokenOffer,
};
export type { OfferStatus } from './offer.entity.js';

/**
 * The offer's steps the wallet's endpoints drive (src/oid4vci/wallet/): the pre-authorized code, the
 * transaction-code tries, the access token and the notification (the one issue is the function
 * `take_offer_for_issue`, which the credential request's statement calls). The offers folder owns
 * the table; this is its door for the wallet side, each step exactly the repository's one statement
 * (the wallet paths are measured, docs/performance.md), transactional ones in the caller's manager.
 */
@Injectable()
export class OfferGrantsService {
  constructor(private readonly offers: OfferRepository) {}

  /** The tenant's offer a pre-authorized code names, by the code's hash. */
  findByCode(tenantId: string, codeHash: Buffer): Promise<GrantedOffer | undefined> {
    return this.offers.findByCode(tenantId, codeHash);
  }

  /** Counts a transaction-code try before the check: the tries so far, or undefined when none is left. */
  countTxCodeTry(id: string, maxTries: number): Promise<number | undefined> {
    return this.offers.countTxCodeTry(id, maxTries);
  }

  /** The last try failed: the offer ends, its claims dropped. */
  failTxCodeTries(id: string): Promise<void> {
    return this.offers.failTxCodeTries(id);
  }

  /** The code's single use, for `EventOutbox.withChange`. */
  acceptStatement(id: string, grant: AccessGrant): ChangeStatement {
    return this.offers.acceptStatement(id, grant);
  }

  /** The tenant's authorization code offer an `issuer_state` names, by its hash. */
  findByIssuerState(tenantId: string, hash: Buffer): Promise<AuthorizationOffer | undefined> {
    return this.offers.findByIssuerState(tenantId, hash);
  }

  /** The same by the offer's id. */
  findById(tenantId: string, id: string): Promise<AuthorizationOffer | undefined> {
    return this.offers.findAuthorizationOffer(tenantId, id);
  }

  /** The authorization code's single use of its offer, with the login's claims. */
  acceptWithClaimsStatement(id: string, grant: AccessGrant, claims: SealedClaims): ChangeStatement {
    return this.offers.acceptWithClaimsStatement(id, grant, claims);
  }

  /** The offer an access token was made for, by the token's hash. */
  findByAccessToken(tokenHash: Buffer): Promise<TokenOffer | undefined> {
    return this.offers.findByAccessToken(tokenHash);
  }

  /** The same, for the credential request: with the tenant's active certificate, in one read. */
  findForCredentialRequest(tokenHash: Buffer): Promise<CredentialRequestOffer | undefined> {
    return this.offers.findForCredentialRequest(tokenHash);
  }

  /** The wallet's notification recorded, for `EventOutbox.withChange`. */
  notifyStatement(id: string, notificationId: string, event: string): ChangeStatement {
    return this.offers.notifyStatement(id, notificationId, event);
  }
}
