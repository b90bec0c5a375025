import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DidModule } from '../did/did.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { CertificateAuthorityEntity } from './certificate-authority.entity.js';
import { CertificateAuthorityController } from './certificate-authority.controller.js';
import { CertificateAuthorityRepository } from './certificate-authority.repository.js';
import { CertificateAuthorityService } from './certificate-authority.service.js';
import { CertificateExpiry } from './certificate-expiry.js';
import { CertificateRequestsService } from './certificate-requests.service.js';
import { CertificatesController } from './certificates.controller.js';
import { certificatesSealedColumns } from './certificates.sealed-columns.js';
import { CertificatesService } from './certificates.service.js';
import { TenantCertificateEntity } from './tenant-certificate.entity.js';
import { TenantCertificateRepository } from './tenant-certificate.repository.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const certificateEntities = [TenantCertificateEntity, CertificateAuthorityEntity];

/**
 * Each tenant's X.509 certificates for its ES256 key and the service's certificate authority
 * (docs/certificates.md); `CertificatesService.activeChain` is what the issue paths call for `x5c`.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(certificateEntities),
    SecretsModule.forFeature(certificatesSealedColumns),
    TenantsModule,
    DidModule,
  ],
  controllers: [CertificatesController, CertificateAuthorityController],
  providers: [
    TenantCertificateRepository,
    CertificateAuthorityRepository,
    CertificateAuthorityService,
    CertificatesService,
    CertificateRequestsService,
    CertificateExpiry,
  ],
  exports: [CertificatesService],
})
export class CertificatesModule {}
