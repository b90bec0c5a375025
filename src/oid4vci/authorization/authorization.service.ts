import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { CLOCK, type Clock } from '../../common/clock.js';
import { invalidRequest, OAuthError } from '../../common/oauth-error.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { violates } from '../../database/constraint-violation.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { CredentialConfigurationsService } from '../credential-configurations.service.js';
import { closedOfferDescription } from '../offers/offer-closed.js';
import { OfferGrantsService } from '../offers/offer-grants.service.js';
import { secretHash } from '../offers/offer-secrets.js';
import { ProofRefusal, verifyDpopProof } from '../wallet/key-proofs.js';
import { AuthorizationPageError, s256, walletErrorRedirect } from './authorization-outcome.js';
import { AuthorizationRepository } from './authorization.repository.js';
import { CLIENT_AUTHENTICATION, type ClientAuthentication } from './client-authentication.js';
import { PERSON_LOGIN, type PersonLogin } from './person-login.js';
import { pushedRequestOf } from './pushed-request.js';

/** A pushed request is good for a minute (RFC 9126 §2.2: short-lived). */
export const requestUriLifetimeSeconds = 60;
/** The person has ten minutes to log in. */
export const loginLifetimeSeconds = 600;
export const requestUriPrefix = 'urn:ietf:params:oauth:request_uri:';
/** The KeyVault purpose of a login's nonce and PKCE verifier, sealed for the tenant. */
export const loginSecretsPurpose = 'oid4vci-login';

/** The calls of the wallet's PAR request. */
export interface ParCall {
  tenantId: string;
  issuer: string;
  form: Record<string, string>;
  dpop: string | undefined;
  attestation: string | undefined;
  pop: string | undefined;
}

/** The login's own secrets (never the wallet's), sealed in the row until the callback. */
export interface LoginSecrets {
  nonce: string;
  codeVerifier: string;
}

const draw = () => randomBytes(32).toString('base64url');

/**
 * The authorization server's front half of the code flow (OpenID4VCI 1.0 §5, docs/oid4vci.md): the
 * pushed request (RFC 9126, the only way in, HAIP 1.0 §4), then the authorize step that spends it and
 * sends the browser to the person's login.
 */
@Injectable()
export class AuthorizationService {
  constructor(
    private readonly authorizations: AuthorizationRepository,
    private readonly offers: OfferGrantsService,
    private readonly configurations: CredentialConfigurationsService,
    @Inject(KeyVault) private readonly vault: KeyVault,
    @Inject(PERSON_LOGIN) private readonly login: PersonLogin,
    @Inject(CLIENT_AUTHENTICATION) private readonly clients: ClientAuthentication,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async par(call: ParCall): Promise<{ request_uri: string; expires_in: number }> {
    const now = this.clock();
    const request = pushedRequestOf(call.form);
    if (call.form.resource !== undefined && call.form.resource !== call.issuer)
      throw new OAuthError(400, 'invalid_target', 'resource must be this credential issuer.');
    const client = await this.clients.authenticate(call.tenantId, {
      attestation: call.attestation,
      pop: call.pop,
      clientId: request.clientId,
      audience: call.issuer,
      now,
    });
    if (client.clientId !== undefined && client.clientId !== request.clientId)
      throw new OAuthError(401, 'invalid_client', 'client_id is not the attested client.');
    const dpopJkt = this.dpopKey(call, request.dpopJkt, now);
    const { offerId, configurationId } = await this.checkGrantable(call.tenantId, request, now);
    const requestUri = draw();
    await this.authorizations
      .insertPushed({
        id: randomUUID(),
        tenantId: call.tenantId,
        requestUriHash: secretHash(requestUri),
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        walletState: request.walletState,
        codeChallenge: request.codeChallenge,
        dpopJkt: dpopJkt ?? null,
        configurationId,
        offerId,
        byAuthorizationDetails: request.byAuthorizationDetails,
        expiresAt: new Date(now + requestUriLifetimeSeconds * 1000),
      })
      .catch((error: unknown) => {
        if (violates(error, 'foreign-key')) throw tenantNotFound(call.tenantId);
        throw error;
      });
    return { request_uri: requestUriPrefix + requestUri, expires_in: requestUriLifetimeSeconds };
  }

  /**
   * Spends the pushed request and answers where the browser goes: the person's login. Before the
   * request is found, refusals are pages (its redirect URI is not trusted yet); after, redirects.
   */
  async authorize(
    tenantId: string,
    issuer: string,
    query: { clientId: unknown; requestUri: unknown },
  ): Promise<string> {
    const { clientId, requestUri } = query;
    if (typeof requestUri !== 'string')
      throw new AuthorizationPageError(
        'This issuer takes pushed authorization requests only (RFC 9126): request_uri is missing.',
      );
    if (typeof clientId !== 'string') throw new AuthorizationPageError('client_id is missing.');
    const reference = requestUri.startsWith(requestUriPrefix)
      ? requestUri.slice(requestUriPrefix.length)
      : '';
    const unknown = new AuthorizationPageError(
      'The authorization request is unknown, expired or already used. Start again from the wallet.',
    );
    if (!/^[A-Za-z0-9_-]{43}$/.test(reference)) throw unknown;
    const now = this.clock();
    const secrets: LoginSecrets = { nonce: draw(), codeVerifier: draw() };
    const state = draw();
    const authorization = await this.authorizations.startLogin(
      tenantId,
      secretHash(reference),
      clientId,
      {
        loginStateHash: secretHash(state),
        loginSealed: this.vault.sealJson(tenantId, secrets, loginSecretsPurpose),
        loginMasterKeyId: this.vault.masterKeyId,
        expiresAt: new Date(now + loginLifetimeSeconds * 1000),
      },
      new Date(now),
    );
    if (authorization === undefined) throw unknown;
    try {
      return await this.login.start(tenantId, {
        state,
        nonce: secrets.nonce,
        codeChallenge: s256(secrets.codeVerifier),
      });
    } catch {
      return walletErrorRedirect(
        authorization,
        issuer,
        'temporarily_unavailable',
        'The person’s login cannot be started now.',
      );
    }
  }

  /** The DPoP key of the pushed request (RFC 9449 §10): its proof's, or `dpop_jkt`; they must agree. */
  private dpopKey(call: ParCall, given: string | undefined, now: number) {
    if (call.dpop === undefined) return given;
    let proved: string;
    try {
      // The proof names the key only: its jti is spent where a token is made or used.
      const proof = verifyDpopProof(call.dpop, {
        method: 'POST',
        url: `${call.issuer}/par`,
        now,
      });
      proved = proof.jkt;
    } catch (error) {
      if (!(error instanceof ProofRefusal)) throw error;
      throw new OAuthError(400, 'invalid_dpop_proof', `The DPoP proof ${error.message}.`);
    }
    if (given !== undefined && given !== proved)
      throw new OAuthError(400, 'invalid_dpop_proof', 'dpop_jkt is not the DPoP proof’s key.');
    return proved;
  }

  /**
   * The offer an `issuer_state` names, open and for the same configuration; without one, the
   * configuration must take every claim from the login (wallet-initiated issuance, docs/oid4vci.md).
   */
  private async checkGrantable(
    tenantId: string,
    request: ReturnType<typeof pushedRequestOf>,
    now: number,
  ): Promise<{ offerId: string | null; configurationId: string }> {
    if (request.issuerState !== undefined) {
      const offer = await this.offers.findByIssuerState(tenantId, secretHash(request.issuerState));
      if (offer === undefined) throw invalidRequest('issuer_state is not one of this issuer’s.');
      const closed = closedOfferDescription(offer.status, offer.expiresAt, now);
      if (closed !== undefined) throw invalidRequest(closed);
      if ((request.configurationId ?? offer.configurationId) !== offer.configurationId)
        throw invalidRequest('The credential asked for is not the offer’s.');
      return { offerId: offer.id, configurationId: offer.configurationId };
    }
    const configurationId = request.configurationId!;
    const configuration = await this.configurations
      .get(tenantId, configurationId)
      .catch((error: unknown) => {
        if (!(error instanceof DomainException) || error.code === 'TENANT_NOT_FOUND') throw error;
        throw new OAuthError(400, 'invalid_scope', 'The issuer has no such credential.');
      });
    if (!allClaimsFromLogin(configuration))
      throw new OAuthError(
        400,
        'invalid_scope',
        'This credential is issued on an offer only: ask the issuer for one.',
      );
    return { offerId: null, configurationId };
  }
}

/** Whether the login gives every claim (a wallet may then start issuance itself). */
export function allClaimsFromLogin(configuration: {
  format: string;
  claims: { path: unknown[] }[];
  claimsFromLogin: Record<string, string> | null;
}): boolean {
  const mapped = Object.keys(configuration.claimsFromLogin ?? {});
  if (mapped.length === 0) return false;
  const offset = configuration.format === 'ldp_vc' ? 1 : 0;
  return configuration.claims.every((claim) => mapped.includes(String(claim.path[offset])));
}
