import { Inject, Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { Settings } from '../config/settings.js';
import { TenantKeys } from '../did/tenant-keys.service.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { ChainRefusal } from '../x509/certificate.js';
import { createCsr } from '../x509/csr.js';
import { documentSignerKeyPurpose } from '../x509/document-signer.js';
import { acceptImportedChain } from '../x509/imported-chain.js';
import { chainRefused } from './certificate.errors.js';
import { viewOf } from './certificate-view.js';
import { CertificatesService } from './certificates.service.js';
import {
  type CertificateDto,
  type CreateCsrDto,
  type CsrDto,
  type ImportCertificateDto,
} from './dto/certificate.dto.js';

/**
 * A tenant's own CA in the loop (docs/certificates.md): a CSR for the tenant's ES256 key, signed by
 * it, and the chain the CA answered, checked and made active, for either purpose (a JWS `x5c` or an
 * mdoc document signer).
 */
@Injectable()
export class CertificateRequestsService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly audit: AuditLog,
    private readonly certificates: CertificatesService,
    private readonly keys: TenantKeys,
    private readonly tenants: TenantsService,
  ) {}

  /**
   * A PKCS #10 request for the tenant's ES256 key: for `x5c` by default naming its issuer URL and
   * host; for a document signer its country and the mdoc extended key usage (Annex B.1.4).
   */
  async csr(tenantId: string, input: CreateCsrDto): Promise<CsrDto> {
    await this.tenants.requireTenant(tenantId);
    const key = await this.keys.es256SigningKey(tenantId);
    const { issuerUrl, host } = this.certificates.namesOf(tenantId);
    const documentSigner = input.purpose === 'document_signer';
    const csr = await createCsr({
      publicJwk: { kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y },
      commonName: input.subject ?? tenantId,
      country: input.country ?? (documentSigner ? this.settings.MDOC_ISSUER_COUNTRY : undefined),
      dnsNames: input.dnsNames ?? (documentSigner ? [] : this.certificates.dnsNamesFor(host)),
      uris: input.uris ?? (documentSigner ? [] : [issuerUrl]),
      extendedKeyUsages: documentSigner ? [documentSignerKeyPurpose] : undefined,
      sign: (data) => key.sign(data),
    });
    return { csr };
  }

  /**
   * The chain becomes the tenant's active one once every check passed; the one before is superseded.
   * A refused chain changes nothing and answers why.
   */
  async import(
    tenantId: string,
    input: ImportCertificateDto,
    actor: Actor,
  ): Promise<CertificateDto> {
    await this.tenants.requireTenant(tenantId);
    const key = await this.keys.es256SigningKey(tenantId);
    const { issuerUrl, host } = this.certificates.namesOf(tenantId);
    const purpose = input.purpose ?? 'x5c';
    let accepted: ReturnType<typeof acceptImportedChain>;
    try {
      accepted = acceptImportedChain(input.chain, {
        publicJwk: key.publicJwk,
        now: new Date(this.clock()),
        profile: purpose === 'x5c' ? { purpose, uri: issuerUrl, dnsName: host } : { purpose },
      });
    } catch (error) {
      if (error instanceof ChainRefusal) throw chainRefused(error);
      throw error;
    }
    const activated = await this.certificates.activate(
      tenantId,
      { source: 'imported', purpose, kid: key.kid, chain: accepted.chain },
      'replace',
    );
    // 'replace' always activates.
    const row = activated!;
    this.audit.record('certificate.import', actor, tenantId, {
      certificateId: row.id,
      serialNumber: row.serialNumber,
      issuer: row.issuer,
      purpose,
    });
    return viewOf(row);
  }
}
