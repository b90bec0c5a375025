import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { invalidGrant, invalidRequest, OAuthError } from '../../common/oauth-error.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { OfferGrantsService } from '../offers/offer-grants.service.js';
import { secretHash } from '../offers/offer-secrets.js';
import {
  accessTokenLifetimeSeconds,
  type AuthorizationCodeGrant,
  type TokenRequest,
  type TokenResponse,
} from '../wallet/token-endpoint.service.js';
import { s256 } from './authorization-outcome.js';
import { AuthorizationRepository } from './authorization.repository.js';
import { CLIENT_AUTHENTICATION, type ClientAuthentication } from './client-authentication.js';

/** Our codes are 32 random bytes in base64url: nothing else is looked up. */
const codeShape = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const verifierShape = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * The authorization code grant (RFC 6749 §4.1.3, OpenID4VCI 1.0 §6.1): the code is spent first, by one
 * statement (of two requests with it, one wins), then checked against what it was issued for: client,
 * redirect URI, PKCE verifier (RFC 7636 §4.6), DPoP key; a check that fails leaves it spent. Its offer
 * then takes the access token and the login's claims as the pre-authorized code's would, so the
 * credential endpoint issues it unchanged.
 */
@Injectable()
export class AuthorizationCodeGrantService implements AuthorizationCodeGrant {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly authorizations: AuthorizationRepository,
    private readonly offers: OfferGrantsService,
    private readonly outbox: EventOutbox,
    @Inject(CLIENT_AUTHENTICATION) private readonly clients: ClientAuthentication,
  ) {}

  async token(
    request: TokenRequest,
    dpopJkt: string | undefined,
    now: number,
  ): Promise<TokenResponse> {
    const { form, tenantId } = request;
    const { code, code_verifier: verifier, redirect_uri: redirectUri } = form;
    if (code === undefined || code === '') throw invalidRequest('code is missing.');
    if (verifier === undefined) throw invalidRequest('code_verifier is missing (RFC 7636).');
    if (redirectUri === undefined) throw invalidRequest('redirect_uri is missing.');
    const client = await this.clients.authenticate(tenantId, {
      attestation: request.attestation,
      pop: request.attestationPop,
      clientId: form.client_id,
      audience: request.issuer,
      now,
    });
    const clientId = client.clientId ?? form.client_id;
    if (clientId === undefined) throw invalidRequest('client_id is missing.');
    if (!codeShape.test(code) || !verifierShape.test(verifier))
      throw invalidGrant('The authorization code or code_verifier is not valid.');

    const authorization = await this.authorizations.redeem(
      tenantId,
      secretHash(code),
      new Date(now),
    );
    if (authorization === undefined || authorization.offerId === null)
      throw invalidGrant('The authorization code is not valid.');
    if (authorization.clientId !== clientId)
      throw invalidGrant('The authorization code was issued to another client.');
    if (authorization.redirectUri !== redirectUri)
      throw invalidGrant('redirect_uri is not the authorization request’s.');
    if (!sameText(s256(verifier), authorization.codeChallenge))
      throw invalidGrant('code_verifier does not match the code_challenge (RFC 7636 §4.6).');
    if (authorization.dpopJkt !== null && authorization.dpopJkt !== dpopJkt)
      throw new OAuthError(400, 'invalid_dpop_proof', 'The code is bound to another DPoP key.');

    const accessToken = randomBytes(32).toString('base64url');
    const accepted = await this.outbox.withChange(
      this.dataSource.manager,
      this.offers.acceptWithClaimsStatement(
        authorization.offerId,
        {
          accessTokenHash: secretHash(accessToken),
          expiresAt: new Date(now + accessTokenLifetimeSeconds * 1000),
          dpopJkt: dpopJkt ?? null,
          refundedTries: 0,
          now: new Date(now),
        },
        { sealed: authorization.claimsSealed!, masterKeyId: authorization.claimsMasterKeyId! },
      ),
      {
        type: 'oid4vci.offer.accepted',
        tenantId,
        data: { offerId: authorization.offerId, configurationId: authorization.configurationId },
      },
    );
    // The offer ended (withdrawn, expired) or was taken meanwhile.
    if (accepted.length === 0) throw invalidGrant('The credential offer is no longer open.');
    return {
      access_token: accessToken,
      token_type: dpopJkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: accessTokenLifetimeSeconds,
      ...(authorization.byAuthorizationDetails
        ? {
            authorization_details: [
              {
                type: 'openid_credential',
                credential_configuration_id: authorization.configurationId,
                credential_identifiers: [authorization.configurationId],
              },
            ],
          }
        : {}),
    };
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
