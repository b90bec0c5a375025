import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { isTxCode, secretHash } from '../offers/offer-secrets.js';
import { ClientAttestationsService } from '../../wallet-providers/client-attestations.service.js';
import { SpentProofs } from '../../wallet-providers/spent-proofs.js';
import { DpopNonces } from './dpop-nonces.js';
import { type DpopProof, ProofRefusal, verifyDpopProof } from './key-proofs.js';
import { closedOfferDescription } from '../offers/offer-closed.js';
import { OfferGrantsService } from '../offers/offer-grants.service.js';
import { invalidGrant, invalidRequest, OAuthError } from '../../common/oauth-error.js';

export const preAuthorizedCodeGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
/** An access token is good for the credential request that follows at once (docs/oid4vci.md). */
export const accessTokenLifetimeSeconds = 300;
/** Wrong transaction codes an offer takes; the last one ends it (docs/oid4vci.md). */
export const maxTxCodeTries = 5;
/** Transaction codes are short; longer input is not one of ours. */
const maxCodeChars = 256;
/** Our pre-authorized codes are 32 random bytes in base64url (offers.service.ts): nothing else is looked up. */
const codeShape = /^[A-Za-z0-9_-]{43}$/;

export interface TokenRequest {
  tenantId: string;
  form: Record<string, string>;
  /** The `DPoP` header, when the wallet sent one. */
  dpop: string | undefined;
  /** The token endpoint's URL, the DPoP proof's `htu`. */
  url: string;
  /** The credential issuer identifier: the client attestation PoP's `aud`. */
  issuer: string;
  /** The `OAuth-Client-Attestation` and `-PoP` headers, when sent. */
  attestation?: string;
  attestationPop?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  /** OpenID4VCI 1.0 §6.2: when the wallet asked by `authorization_details`. */
  authorization_details?: Record<string, unknown>[];
}

/**
 * The authorization code grant (src/oid4vci/authorization/), provided by the module: the token endpoint
 * hands it the request with the DPoP key it verified, without depending on that folder.
 */
export interface AuthorizationCodeGrant {
  token(request: TokenRequest, dpopJkt: string | undefined, now: number): Promise<TokenResponse>;
}

export const AUTHORIZATION_CODE_GRANT = Symbol('AUTHORIZATION_CODE_GRANT');

/**
 * The token endpoint: the authorization code grant handed on, and the pre-authorized code grant
 * (OpenID4VCI 1.0 §6, RFC 6749 §5): the code once, the transaction code
 * with a bounded number of tries, the token bound to the wallet's DPoP key when it proves one.
 */
@Injectable()
export class TokenEndpointService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly offers: OfferGrantsService,
    private readonly outbox: EventOutbox,
    private readonly clientAttestations: ClientAttestationsService,
    private readonly spentProofs: SpentProofs,
    private readonly dpopNonces: DpopNonces,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(AUTHORIZATION_CODE_GRANT) private readonly codeGrant: AuthorizationCodeGrant,
  ) {}

  async token(request: TokenRequest): Promise<TokenResponse> {
    const { form } = request;
    if (form.grant_type === undefined) throw invalidRequest('grant_type is missing.');
    if (form.grant_type === 'authorization_code') {
      const now = this.clock();
      // The proof's nonce and jti as for the other grant; the client is the code grant's to check.
      const dpop = this.dpopProof(request, now);
      const dpopJkt = dpop === undefined ? undefined : await this.spendDpop(request.tenantId, dpop);
      return this.codeGrant.token(request, dpopJkt, now);
    }
    if (form.grant_type !== preAuthorizedCodeGrant)
      throw new OAuthError(
        400,
        'unsupported_grant_type',
        `Only ${preAuthorizedCodeGrant} and authorization_code are supported.`,
      );
    const code = form['pre-authorized_code'];
    if (code === undefined || code === '') throw invalidRequest('pre-authorized_code is missing.');
    const txCode = form.tx_code;
    // Before the DPoP proof's signature and the database: a guess that cannot be a code costs nothing.
    if (!codeShape.test(code) || (txCode?.length ?? 0) > maxCodeChars)
      throw invalidGrant('The pre-authorized code or transaction code is not valid.');
    const now = this.clock();
    const dpop = this.dpopProof(request, now);
    // The client before the grant (RFC 6749 §3.2.1): attested when it sends one, as the tenant requires.
    await this.clientAttestations.authenticate(request.tenantId, {
      ...(request.attestation === undefined ? {} : { attestation: request.attestation }),
      ...(request.attestationPop === undefined ? {} : { pop: request.attestationPop }),
      ...(form.client_id === undefined ? {} : { clientId: form.client_id }),
      audience: request.issuer,
      now,
    });
    const dpopJkt = dpop === undefined ? undefined : await this.spendDpop(request.tenantId, dpop);

    const offer = await this.offers.findByCode(request.tenantId, secretHash(code));
    if (offer === undefined) throw invalidGrant('The pre-authorized code is not valid.');
    const closedBecause = closedOfferDescription(offer.status, offer.expiresAt, now);
    if (closedBecause !== undefined) throw invalidGrant(closedBecause);
    let refundedTries: 0 | 1 = 0;
    if (offer.txCodeHash === null) {
      if (txCode !== undefined) throw invalidRequest('This offer has no transaction code.');
    } else {
      if (txCode === undefined || txCode === '')
        throw invalidRequest('tx_code is missing: this offer has a transaction code.');
      // The try is counted before the check, so parallel guesses share the same few tries.
      const tries = await this.offers.countTxCodeTry(offer.id, maxTxCodeTries);
      if (tries === undefined) throw invalidGrant('The pre-authorized code is not valid.');
      if (!(await isTxCode(offer.id, txCode, offer.txCodeHash))) {
        if (tries >= maxTxCodeTries) await this.offers.failTxCodeTries(offer.id);
        throw invalidGrant('The transaction code is wrong.');
      }
      refundedTries = 1;
    }

    const accessToken = randomBytes(32).toString('base64url');
    const accepted = await this.outbox.withChange(
      this.dataSource.manager,
      this.offers.acceptStatement(offer.id, {
        accessTokenHash: secretHash(accessToken),
        expiresAt: new Date(now + accessTokenLifetimeSeconds * 1000),
        dpopJkt: dpopJkt ?? null,
        refundedTries,
        now: new Date(now),
      }),
      {
        type: 'oid4vci.offer.accepted',
        tenantId: request.tenantId,
        data: { offerId: offer.id, configurationId: offer.configurationId },
      },
    );
    // Another request used the code first (or the offer ended meanwhile): single use.
    if (accepted.length === 0) throw invalidGrant('The pre-authorized code is not valid.');
    return {
      access_token: accessToken,
      token_type: dpopJkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: accessTokenLifetimeSeconds,
    };
  }

  /**
   * The wallet's DPoP proof verified (RFC 9449 §5), with a fresh server nonce when the service requires
   * one (§8: `use_dpop_nonce`, the controller sends the `DPoP-Nonce`), or undefined without a proof
   * (a Bearer token: the nonce setting concerns DPoP proofs only).
   */
  private dpopProof(request: TokenRequest, now: number): DpopProof | undefined {
    if (request.dpop === undefined) return undefined;
    let proof: DpopProof;
    try {
      proof = verifyDpopProof(request.dpop, { method: 'POST', url: request.url, now });
    } catch (error) {
      if (!(error instanceof ProofRefusal)) throw error;
      throw new OAuthError(400, 'invalid_dpop_proof', `The DPoP proof ${error.message}.`);
    }
    if (this.dpopNonces.required && !this.dpopNonces.isFresh(request.tenantId, proof.nonce))
      throw new OAuthError(400, 'use_dpop_nonce', 'Make the DPoP proof with the DPoP-Nonce given.');
    return proof;
  }

  /** The proof's `jti` spent, shared by every instance (RFC 9449 §11.1); answers the key's `jkt`. */
  private async spendDpop(tenantId: string, proof: DpopProof): Promise<string> {
    const fresh = await this.spentProofs.spend({
      tenantId,
      kind: 'dpop',
      keyThumbprint: proof.jkt,
      jti: proof.jti,
      issuedAt: proof.iat,
    });
    if (!fresh)
      throw new OAuthError(400, 'invalid_dpop_proof', 'The jti of the DPoP proof was used before.');
    return proof.jkt;
  }
}
