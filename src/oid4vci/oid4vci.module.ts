import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CertificatesModule } from '../certificates/certificates.module.js';
import { CredentialsModule } from '../credentials/credentials.module.js';
import { DidModule } from '../did/did.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { AuthorizationCodeGrantService } from './authorization/authorization-code-grant.js';
import { AuthorizationController } from './authorization/authorization.controller.js';
import { AuthorizationEntity } from './authorization/authorization.entity.js';
import { AuthorizationPurge } from './authorization/authorization-purge.js';
import { AuthorizationRepository } from './authorization/authorization.repository.js';
import { authorizationSealedColumns } from './authorization/authorization.sealed-columns.js';
import { AuthorizationService } from './authorization/authorization.service.js';
import { CLIENT_AUTHENTICATION } from './authorization/client-authentication.js';
import { LoginCallbackService } from './authorization/login-callback.service.js';
import { PERSON_LOGIN } from './authorization/person-login.js';
import { ClientAttestationsService } from '../wallet-providers/client-attestations.service.js';
import { WalletProvidersModule } from '../wallet-providers/wallet-providers.module.js';
import { CredentialConfigurationEntity } from './credential-configuration.entity.js';
import { CredentialConfigurationRepository } from './credential-configuration.repository.js';
import { CredentialConfigurationsController } from './credential-configurations.controller.js';
import { CredentialConfigurationsService } from './credential-configurations.service.js';
import { IssuerMetadataController } from './issuer-metadata.controller.js';
import { IssuerMetadataService } from './issuer-metadata.service.js';
import {
  loginProviderEntities,
  LoginProviderModule,
} from './login-provider/login-provider.module.js';
import { PersonLoginService } from './login-provider/person-login.service.js';
import { CredentialOfferController } from './offers/credential-offer.controller.js';
import { OfferEntity } from './offers/offer.entity.js';
import { OfferExpiry } from './offers/offer-expiry.js';
import { OfferGrantsService } from './offers/offer-grants.service.js';
import { OfferRepository } from './offers/offer.repository.js';
import { offerSealedColumns } from './offers/offer.sealed-columns.js';
import { OffersController } from './offers/offers.controller.js';
import { OffersService } from './offers/offers.service.js';
import { CredentialEndpointService } from './wallet/credential-endpoint.service.js';
import { NonceEntity } from './wallet/nonce.entity.js';
import { NoncePurge } from './wallet/nonce-purge.js';
import { NonceRepository } from './wallet/nonce.repository.js';
import { CredentialRequestRepository } from './wallet/credential-request.repository.js';
import { NoncesService } from './wallet/nonces.service.js';
import { AUTHORIZATION_CODE_GRANT, TokenEndpointService } from './wallet/token-endpoint.service.js';
import { DpopNonces } from './wallet/dpop-nonces.js';
import { KeyProofsService } from './wallet/key-proofs.service.js';
import { NotificationEventEntity } from './wallet/notification.entity.js';
import { NotificationsRepository } from './wallet/notifications.repository.js';
import { WalletController } from './wallet/wallet.controller.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const oid4vciEntities = [
  CredentialConfigurationEntity,
  OfferEntity,
  NonceEntity,
  ...loginProviderEntities,
  AuthorizationEntity,
  NotificationEventEntity,
];

/** Each tenant as an OpenID4VCI 1.0 credential issuer (docs/oid4vci.md). */
@Module({
  imports: [
    TypeOrmModule.forFeature(oid4vciEntities),
    SecretsModule.forFeature(offerSealedColumns),
    SecretsModule.forFeature(authorizationSealedColumns),
    TenantsModule,
    CredentialsModule,
    // The signed metadata: the tenant's ES256 key and its certificate chain.
    DidModule,
    CertificatesModule,
    // The person's login for the authorization code flow (PersonLoginService).
    LoginProviderModule,
    // Wallet and key attestations, and the spent proof ids (docs/wallet-providers.md).
    WalletProvidersModule,
  ],
  controllers: [
    CredentialConfigurationsController,
    IssuerMetadataController,
    OffersController,
    CredentialOfferController,
    WalletController,
    AuthorizationController,
  ],
  providers: [
    CredentialConfigurationRepository,
    CredentialConfigurationsService,
    IssuerMetadataService,
    OfferRepository,
    OffersService,
    OfferExpiry,
    OfferGrantsService,
    // The wallet's endpoints (src/oid4vci/wallet/).
    NonceRepository,
    CredentialRequestRepository,
    NoncesService,
    NoncePurge,
    TokenEndpointService,
    CredentialEndpointService,
    // The authorization code flow (src/oid4vci/authorization/) and its two seams.
    AuthorizationRepository,
    AuthorizationService,
    LoginCallbackService,
    AuthorizationPurge,
    { provide: AUTHORIZATION_CODE_GRANT, useClass: AuthorizationCodeGrantService },
    // The person logs in at the tenant's login provider (docs/login-provider.md).
    { provide: PERSON_LOGIN, useExisting: PersonLoginService },
    // Wallets authenticate by wallet attestation (docs/wallet-providers.md).
    { provide: CLIENT_AUTHENTICATION, useExisting: ClientAttestationsService },
    DpopNonces,
    KeyProofsService,
    NotificationsRepository,
  ],
})
export class Oid4vciModule {}
