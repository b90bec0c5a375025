import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { CredentialConfigurationsService } from '../credential-configurations.service.js';
import { openClaims, sealClaims } from '../offers/offer-claims.js';
import { closedOfferDescription } from '../offers/offer-closed.js';
import { OfferGrantsService } from '../offers/offer-grants.service.js';
import { OffersService } from '../offers/offers.service.js';
import { secretHash } from '../offers/offer-secrets.js';
import {
  AuthorizationPageError,
  walletErrorRedirect,
  walletRedirect,
} from './authorization-outcome.js';
import { type Authorization, AuthorizationRepository } from './authorization.repository.js';
import {
  allClaimsFromLogin,
  type LoginSecrets,
  loginSecretsPurpose,
} from './authorization.service.js';
import { credentialClaimsOf, type LoginRefusal } from './login-claims.js';
import { PERSON_LOGIN, type PersonLogin } from './person-login.js';

/** A code is good for a minute (RFC 6749 §4.1.2: short-lived; the wallet redeems it at once). */
export const codeLifetimeSeconds = 60;

/** What the login provider sent the browser back with. */
export interface CallbackQuery {
  code: unknown;
  state: unknown;
  error: unknown;
}

/** Where the credential's claims come from for one authorization. */
interface Grantable {
  offerId: string;
  definition: ConfigurationDefinition;
  offerClaims: Record<string, unknown>;
  subject: string | null;
  /** A wallet-initiated authorization: its offer is made once the login gave its claims. */
  create?: (claims: Record<string, unknown>) => Promise<void>;
}

/**
 * The login's way back (docs/oid4vci.md, Authorization code flow): spends the login's state, asks the
 * login for the person's claims, maps them to the credential's and answers the wallet's redirect URI
 * with a single-use code (and `iss`, RFC 9207) or with `access_denied`.
 */
@Injectable()
export class LoginCallbackService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly authorizations: AuthorizationRepository,
    private readonly offerGrants: OfferGrantsService,
    private readonly offers: OffersService,
    private readonly configurations: CredentialConfigurationsService,
    private readonly outbox: EventOutbox,
    @Inject(KeyVault) private readonly vault: KeyVault,
    @Inject(PERSON_LOGIN) private readonly login: PersonLogin,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async callback(tenantId: string, issuer: string, query: CallbackQuery): Promise<string> {
    const unknown = new AuthorizationPageError(
      'This login is unknown, expired or already finished. Start again from the wallet.',
    );
    if (typeof query.state !== 'string' || query.state.length > 512) throw unknown;
    const now = this.clock();
    const authorization = await this.authorizations.takeLogin(
      tenantId,
      secretHash(query.state),
      new Date(now),
    );
    if (authorization === undefined || authorization.loginSealed === null) throw unknown;
    const denied = (description: string) =>
      walletErrorRedirect(authorization, issuer, 'access_denied', description);
    if (query.error !== undefined || typeof query.code !== 'string' || query.code.length > 4096)
      return denied('The person did not log in.');
    const secrets = this.loginSecrets(authorization);
    let login: Record<string, unknown>;
    try {
      login = await this.login.finish(tenantId, { code: query.code, ...secrets });
    } catch {
      return denied('The person’s login did not succeed.');
    }
    const grantable = await this.grantable(authorization);
    if (grantable === undefined)
      return denied('The credential offer or configuration is no longer available.');
    const outcome = credentialClaimsOf(login, grantable.definition, {
      claims: grantable.offerClaims,
      subject: grantable.subject,
    });
    if ('refusal' in outcome) {
      await this.deny(authorization, grantable.offerId, outcome.refusal);
      return denied(outcome.refusal.description);
    }
    try {
      await grantable.create?.(outcome.claims);
    } catch {
      return walletErrorRedirect(
        authorization,
        issuer,
        'temporarily_unavailable',
        'The issuer cannot take this credential request now.',
      );
    }
    const code = randomBytes(32).toString('base64url');
    const issued = await this.authorizations.issueCode(authorization.id, {
      codeHash: secretHash(code),
      offerId: grantable.offerId,
      claimsSealed: sealClaims(this.vault, grantable.offerId, outcome.claims),
      claimsMasterKeyId: this.vault.masterKeyId,
      expiresAt: new Date(now + codeLifetimeSeconds * 1000),
    });
    if (!issued) throw unknown;
    return walletRedirect(authorization.redirectUri, {
      code,
      state: authorization.walletState,
      iss: issuer,
    });
  }

  private loginSecrets(authorization: Authorization): LoginSecrets {
    return this.vault.openJson(
      authorization.tenantId,
      authorization.loginSealed!,
      loginSecretsPurpose,
      authorization.loginMasterKeyId,
    );
  }

  /** The offer's claims and pinned person, or the configuration of a wallet-initiated request. */
  private async grantable(authorization: Authorization): Promise<Grantable | undefined> {
    const { tenantId } = authorization;
    if (authorization.offerId !== null) {
      const offer = await this.offerGrants.findById(tenantId, authorization.offerId);
      if (offer === undefined) return undefined;
      if (closedOfferDescription(offer.status, offer.expiresAt, this.clock()) !== undefined)
        return undefined;
      const offerClaims = openClaims(this.vault, offer.id, { ...offer, claimsUnsealed: null });
      return {
        offerId: offer.id,
        definition: offer.configuration,
        offerClaims: offerClaims ?? {},
        subject: offer.subject,
      };
    }
    const configuration = await this.configurations
      .get(tenantId, authorization.configurationId)
      .catch(() => undefined);
    if (configuration === undefined || !allClaimsFromLogin(configuration)) return undefined;
    const offerId = randomUUID();
    return {
      offerId,
      definition: { ...configuration },
      offerClaims: {},
      subject: null,
      create: (claims) => this.offers.createForLogin(tenantId, offerId, configuration, claims),
    };
  }

  /** The refusal recorded with its event (no claim values), the code never made. */
  private async deny(authorization: Authorization, offerId: string, refusal: LoginRefusal) {
    await this.outbox.withChange(
      this.dataSource.manager,
      this.authorizations.denyStatement(authorization.id),
      {
        type: 'oid4vci.authorization.denied',
        tenantId: authorization.tenantId,
        data: {
          offerId: authorization.offerId === null ? null : offerId,
          configurationId: authorization.configurationId,
          reason: refusal.reason,
        },
      },
    );
  }
}
