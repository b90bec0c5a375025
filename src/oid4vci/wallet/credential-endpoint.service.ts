import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import {
  HolderIssuanceService,
  isMdocDeviceKey,
} from '../../credentials/issuing/holder-issuance.service.js';
import { EventOutbox, type EventType } from '../../events/event-outbox.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { openClaims } from '../offers/offer-claims.js';
import { secretHash } from '../offers/offer-secrets.js';
import { holderRequestOf } from './holder-request.js';
import { requestedProofs } from './credential-request-body.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { type DpopProof, ProofRefusal, verifyDpopProof } from './key-proofs.js';
import { KeyProofsService } from './key-proofs.service.js';
import { NotificationsRepository } from './notifications.repository.js';
import { SpentProofs } from '../../wallet-providers/spent-proofs.js';
import { CredentialRequestRepository } from './credential-request.repository.js';
import {
  OfferGrantsService,
  type CredentialRequestOffer,
  type OfferIssuerCertificate,
  type OfferStatus,
  type TokenOffer,
} from '../offers/offer-grants.service.js';
import { invalidProof, invalidToken, OAuthError } from '../../common/oauth-error.js';

/** How the wallet called a protected endpoint: its headers and the endpoint's own URL. */
export interface ProtectedCall {
  tenantId: string;
  /** The credential issuer identifier. */
  issuer: string;
  authorization: string | undefined;
  dpop: string | undefined;
  /** The endpoint's URL, the DPoP proof's `htu`. */
  url: string;
}

/** A call whose access token is good: the offer it was made for. */
export interface Authorized {
  offer: TokenOffer;
  tokenHash: Buffer;
  scheme: 'Bearer' | 'DPoP';
  /** For a credential request: the tenant's active certificate, read with the offer. */
  certificate?: OfferIssuerCertificate;
  /** For a credential request: the configuration the offer was made with. */
  configuration?: ConfigurationDefinition;
  /** For a credential request: the configuration's key attestation requirement, read with the offer. */
  keyAttestationsRequired?: CredentialRequestOffer['keyAttestationsRequired'];
}

export interface CredentialResponse {
  credentials: { credential: string | Record<string, unknown> }[];
  notification_id: string;
}

const notificationEvents: Record<string, EventType> = {
  credential_accepted: 'oid4vci.credential.accepted',
  credential_failure: 'oid4vci.credential.failed',
  credential_deleted: 'oid4vci.credential.deleted',
};
const maxTokenChars = 256;
const maxDescriptionChars = 1000;

/**
 * The credential endpoint (OpenID4VCI 1.0 §8) and the notification endpoint (§11), both protected by
 * the access token of the token endpoint, DPoP-bound or Bearer (RFC 6750, RFC 9449 §7).
 */
@Injectable()
export class CredentialEndpointService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly offers: OfferGrantsService,
    private readonly requests: CredentialRequestRepository,
    private readonly holderIssuance: HolderIssuanceService,
    private readonly outbox: EventOutbox,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly spentProofs: SpentProofs,
    private readonly keyProofs: KeyProofsService,
    private readonly notifications: NotificationsRepository,
  ) {}

  /**
   * The offer the call's access token was made for, when the token is good for `status`: a withdrawn,
   * expired or failed offer's token is good for nothing (docs/oid4vci.md).
   */
  async authorize(call: ProtectedCall, status: OfferStatus): Promise<Authorized> {
    const match = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(call.authorization ?? '');
    if (match === null) throw invalidToken('Bearer', 'An access token is required.');
    const scheme = match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
    const token = match[2];
    const refuse = () => invalidToken(scheme, 'The access token is not valid.');
    if (token.length > maxTokenChars) throw refuse();
    const tokenHash = secretHash(token);
    // A credential request reads the certificate its ES256 credential carries in the same round trip.
    const offer: TokenOffer | CredentialRequestOffer | undefined =
      status === 'accepted'
        ? await this.offers.findForCredentialRequest(tokenHash)
        : await this.offers.findByAccessToken(tokenHash);
    const now = this.clock();
    if (
      offer === undefined ||
      offer.tenantId !== call.tenantId ||
      offer.status !== status ||
      offer.accessTokenExpiresAt.getTime() <= now ||
      // An open offer past its time has ended, whether or not the expiry job has marked it yet.
      (status === 'accepted' && offer.expiresAt.getTime() <= now)
    )
      throw refuse();
    const authorized: Authorized = { offer, tokenHash, scheme };
    const { certificate, configuration, keyAttestationsRequired } =
      offer as Partial<CredentialRequestOffer>;
    if (certificate !== undefined) authorized.certificate = certificate;
    if (configuration !== undefined) authorized.configuration = configuration;
    if (keyAttestationsRequired !== undefined)
      authorized.keyAttestationsRequired = keyAttestationsRequired;
    if (offer.dpopJkt === null) {
      // A Bearer token presented as DPoP would let a proof stand in for the binding it never had.
      if (scheme !== 'Bearer') throw refuse();
      return authorized;
    }
    if (scheme !== 'DPoP') throw refuse();
    if (call.dpop === undefined)
      throw invalidToken('DPoP', 'A DPoP proof is required.', 'invalid_dpop_proof');
    let proof: DpopProof;
    try {
      proof = verifyDpopProof(call.dpop, {
        method: 'POST',
        url: call.url,
        now,
        accessToken: token,
      });
    } catch (error) {
      if (!(error instanceof ProofRefusal)) throw error;
      throw invalidToken('DPoP', `The DPoP proof ${error.message}.`, 'invalid_dpop_proof');
    }
    if (proof.jkt !== offer.dpopJkt)
      throw invalidToken('DPoP', 'The DPoP proof is not made with the key the token is bound to.');
    // Spent once the rest holds, shared by every instance (RFC 9449 §11.1).
    const fresh = await this.spentProofs.spend({
      tenantId: call.tenantId,
      kind: 'dpop',
      keyThumbprint: proof.jkt,
      jti: proof.jti,
      issuedAt: proof.iat,
    });
    if (!fresh)
      throw invalidToken(
        'DPoP',
        'The jti of the DPoP proof was used before.',
        'invalid_dpop_proof',
      );
    return authorized;
  }

  /** The credential request (§8.2): one credential per proved key, in one transaction. */
  async credential(
    call: ProtectedCall,
    { offer, tokenHash, scheme, certificate, configuration, keyAttestationsRequired }: Authorized,
    body: Record<string, unknown>,
  ): Promise<CredentialResponse> {
    const jwts = requestedProofs(body, offer.configurationId);
    const { holders, nonce } = await this.keyProofs.verify(jwts, {
      tenantId: call.tenantId,
      issuer: call.issuer,
      keyAttestationsRequired: keyAttestationsRequired ?? null,
      didAllowed: offer.format === 'ldp_vc',
    });

    const mdoc = offer.format === 'mso_mdoc';
    // The MSO's deviceKey is a P-256 COSE_Key (ISO/IEC 18013-5 §9.1.5.2, HAIP 1.0 §5.3).
    if (mdoc && !holders.every(({ jwk }) => isMdocDeviceKey(jwk)))
      throw invalidProof('An mso_mdoc credential binds to P-256 keys (ES256 proofs) only.');
    // Before the statement: a tenant's first certificate is made on a connection of its own.
    const chain = mdoc
      ? await this.holderIssuance.documentSignerChain(call.tenantId)
      : signsWithEs256(offer)
        ? await this.holderIssuance.issuerChain(call.tenantId, certificate)
        : undefined;
    if (mdoc && chain === undefined)
      throw new OAuthError(
        400,
        'credential_request_denied',
        'The issuer has no document signer certificate for mdocs.',
      );
    if (configuration === undefined) throw invalidToken(scheme, 'The access token is not valid.');
    // The records are written with the offer's take: their ids, entries and events chosen first.
    const request = holderRequestOf(
      {
        tenantId: call.tenantId,
        offerId: offer.id,
        configurationId: offer.configurationId,
        credentialIssuer: call.issuer,
      },
      configuration,
      null,
    );
    const prepared = this.holderIssuance.prepare(
      request,
      holders.map((holder) => ({ ...holder, credentialId: `urn:uuid:${randomUUID()}` })),
    );
    const notificationId = randomBytes(16).toString('base64url');
    // One statement, no transaction around it: the nonce spent, the offer taken (checked again under
    // its lock, as it may have been withdrawn or used since `authorize`), the credentials recorded.
    const taken = await this.holderIssuance.inStatement(prepared, (records) =>
      this.requests
        .take({
          tenantId: call.tenantId,
          nonceHash: secretHash(nonce),
          offerId: offer.id,
          tokenHash,
          now: new Date(this.clock()),
          credentialIds: prepared.map(({ holder }) => holder.credentialId),
          notificationId,
          keyAlgorithm: signsWithEs256(offer) || mdoc ? 'ES256' : null,
          records,
        })
        .then((result) => [result]),
    );
    const [{ nonceFound, offer: issuable, key, taken: entries }] = taken;
    if (!nonceFound)
      throw new OAuthError(400, 'invalid_nonce', 'The nonce is unknown, spent or expired.');
    if (issuable === undefined) throw invalidToken(scheme, 'The access token is not valid.');
    // Signed once the records committed: what a wallet receives is always recorded.
    const credentials = await this.holderIssuance.sign(
      { ...request, claims: openClaims(this.vault, offer.id, issuable) ?? {} },
      prepared,
      entries,
      chain,
      key,
    );
    return {
      credentials: credentials.map((issued) => ({ credential: issued.credential })),
      notification_id: notificationId,
    };
  }

  /** A notification (§11.1): recorded on the offer and emitted as an event. */
  async notify(
    call: ProtectedCall,
    { offer }: Authorized,
    body: Record<string, unknown>,
  ): Promise<void> {
    const refuse = (description: string) =>
      new OAuthError(400, 'invalid_notification_request', description);
    const { notification_id: notificationId, event, event_description: description } = body;
    if (typeof notificationId !== 'string' || notificationId === '')
      throw refuse('notification_id must be a string.');
    if (typeof event !== 'string' || !Object.hasOwn(notificationEvents, event))
      throw refuse(`event must be one of ${Object.keys(notificationEvents).join(', ')}.`);
    if (
      description !== undefined &&
      (typeof description !== 'string' ||
        description.length > maxDescriptionChars ||
        !/^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/.test(description))
    )
      throw refuse(
        `event_description must be at most ${maxDescriptionChars} ASCII characters without " or \\.`,
      );
    const invalidId = () =>
      new OAuthError(400, 'invalid_notification_id', 'The notification_id is not valid.');
    if (notificationId !== offer.notificationId) throw invalidId();
    await this.dataSource.transaction(async (manager) => {
      // Once per credential and event (docs/oid4vci.md): the first holds the key, a repeat waits, then finds it.
      if (!(await this.notifications.record(manager, offer.id, event)))
        throw refuse(`The event ${event} was already notified for this credential.`);
      const changed = await this.outbox.withChange(
        manager,
        this.offers.notifyStatement(offer.id, notificationId, event),
        {
          type: notificationEvents[event],
          tenantId: call.tenantId,
          data: { offerId: offer.id, credentialIds: offer.credentialIds },
        },
      );
      if (changed.length === 0) throw invalidId();
    });
  }
}

/** An SD-JWT VC signed with the ES256 key, the one a certificate names (a missing alg is the default). */
function signsWithEs256(offer: TokenOffer): boolean {
  return offer.format === 'dc+sd-jwt' && offer.signingAlgorithm !== 'EdDSA';
}
