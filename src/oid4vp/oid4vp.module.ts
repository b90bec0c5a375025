import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CertificatesModule } from '../certificates/certificates.module.js';
import { CredentialsModule } from '../credentials/credentials.module.js';
import { DidModule } from '../did/did.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { DcApiRequests } from './dc-api-request.js';
import { DcApiResponseController } from './dc-api/dc-api-response.controller.js';
import { DcApiResponseService } from './dc-api/dc-api-response.service.js';
import { PresentationRequestEntity } from './requests/presentation-request.entity.js';
import { PresentationRequestRepository } from './requests/presentation-request.repository.js';
import { presentationRequestSealedColumns } from './requests/presentation-request.sealed-columns.js';
import { PresentationRequestsController } from './requests/presentation-requests.controller.js';
import { PresentationRequestsService } from './requests/presentation-requests.service.js';
import { RequestHousekeeping } from './requests/request-housekeeping.js';
import { WalletRequests } from './requests/wallet-requests.js';
import { AnswerSettlement } from './wallet/answer-settlement.service.js';
import { RequestObjectService } from './wallet/request-object.service.js';
import { ResponseEndpointService } from './wallet/response-endpoint.service.js';
import { VerifierIdentity } from './verifier-identity.service.js';
import { VerifierWalletController } from './wallet/verifier-wallet.controller.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const oid4vpEntities = [PresentationRequestEntity];

/** Each tenant as an OpenID4VP 1.0 verifier (docs/oid4vp.md). */
@Module({
  imports: [
    TypeOrmModule.forFeature(oid4vpEntities),
    SecretsModule.forFeature(presentationRequestSealedColumns),
    TenantsModule,
    DidModule,
    CredentialsModule,
    CertificatesModule,
  ],
  controllers: [PresentationRequestsController, VerifierWalletController, DcApiResponseController],
  providers: [
    PresentationRequestRepository,
    PresentationRequestsService,
    RequestHousekeeping,
    WalletRequests,
    VerifierIdentity,
    DcApiRequests,
    // The wallet's endpoints (src/oid4vp/wallet/).
    RequestObjectService,
    ResponseEndpointService,
    AnswerSettlement,
    // The relying party's back end hands over the browser's answer (src/oid4vp/dc-api/).
    DcApiResponseService,
  ],
})
export class Oid4vpModule {}
