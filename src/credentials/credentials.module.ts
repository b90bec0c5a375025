import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CertificatesModule } from '../certificates/certificates.module.js';
import { Settings } from '../config/settings.js';
import { DidModule } from '../did/did.module.js';
import { TrustAnchorsModule } from '../trust-anchors/trust-anchors.module.js';
import { TrustedIssuersModule } from '../trusted-issuers/trusted-issuers.module.js';
import { bundledContexts, contextsFromFolder } from './contexts.js';
import { CredentialsController } from './credentials.controller.js';
import { CredentialIssuanceService } from './issuing/credential-issuance.service.js';
import { CredentialStatusService } from './issuing/credential-status.service.js';
import { CredentialVerificationService } from './verifying/credential-verification.service.js';
import { CredentialVerifier } from './verifying/credential-verifier.js';
import { PresentationsController } from './presentations.controller.js';
import { PresentationsService } from './verifying/presentations.service.js';
import { IssuedCredentialEntity } from './issuing/issued-credential.entity.js';
import { IssuedCredentialsService } from './issuing/issued-credentials.service.js';
import { HolderIssuanceService } from './issuing/holder-issuance.service.js';
import { TenantTrustRead } from './verifying/tenant-trust.js';
import { WalletPresentationsService } from './verifying/wallet-presentations.service.js';
import { LdpPresentationVerifier } from './verifying/ldp-presentation-verifier.js';
import { MdocPresentationVerifier } from './mdoc/mdoc-presentation.js';
import { CredentialIssuerKeys } from './sd-jwt/credential-issuer-keys.js';
import { RemoteTokenStatusLists } from './sd-jwt/remote-token-status-lists.js';
import { SdJwtVcVerifier } from './sd-jwt/sd-jwt-vc-verifier.js';
import { IssueRecorder } from './issuing/issue-recorder.js';
import { JwtVcIssuerController } from './sd-jwt/jwt-vc-issuer.controller.js';
import { StatusEntryEntity } from './status/status-entry.entity.js';
import { StatusListEntity } from './status/status-list.entity.js';
import { IssuedCredentialRepository } from './issuing/issued-credential.repository.js';
import { StatusListsController } from './status/status-lists.controller.js';
import { RemoteStatusLists } from './status/remote-status-lists.js';
import { StatusListsService } from './status/status-lists.service.js';
import { StatusIndexAllocator } from './status/status-index-allocator.js';
import { StatusEntryRepository } from './status/status-entry.repository.js';
import { StatusListRepository } from './status/status-list.repository.js';
import { createDocumentLoader, DOCUMENT_LOADER } from './document-loader.js';
import { DidResolution } from './did-resolution/did-resolution.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const credentialEntities = [StatusListEntity, StatusEntryEntity, IssuedCredentialEntity];

@Module({
  imports: [
    TypeOrmModule.forFeature(credentialEntities),
    DidModule,
    TrustedIssuersModule,
    CertificatesModule,
    TrustAnchorsModule,
  ],
  controllers: [
    CredentialsController,
    PresentationsController,
    StatusListsController,
    JwtVcIssuerController,
  ],
  providers: [
    CredentialIssuanceService,
    HolderIssuanceService,
    WalletPresentationsService,
    TenantTrustRead,
    SdJwtVcVerifier,
    LdpPresentationVerifier,
    MdocPresentationVerifier,
    CredentialIssuerKeys,
    RemoteTokenStatusLists,
    IssueRecorder,
    CredentialVerificationService,
    CredentialStatusService,
    CredentialVerifier,
    PresentationsService,
    IssuedCredentialsService,
    IssuedCredentialRepository,
    StatusListsService,
    StatusListRepository,
    StatusEntryRepository,
    StatusIndexAllocator,
    RemoteStatusLists,
    // did:web documents come through the same outbound policy as status lists.
    {
      provide: DidResolution,
      useFactory: (settings: Settings) =>
        new DidResolution({
          allowPrivate: settings.statusListAllowPrivateTargets,
          ca: settings.OUTBOUND_CA_FILE,
        }),
      inject: [Settings],
    },
    // Read once at boot: a bad operator context stops the start, not a request.
    {
      provide: DOCUMENT_LOADER,
      useFactory: (settings: Settings, dids: DidResolution) =>
        createDocumentLoader(
          new Map([
            ...bundledContexts(),
            ...(settings.CREDENTIAL_CONTEXTS_DIR === undefined
              ? []
              : contextsFromFolder(settings.CREDENTIAL_CONTEXTS_DIR)),
          ]),
          // Inside a verification step nothing is fetched: the verifier prefetches did:web documents.
          dids.rememberedOnly,
        ),
      inject: [Settings, DidResolution],
    },
  ],
  exports: [HolderIssuanceService, WalletPresentationsService],
})
export class CredentialsModule {}
