import { type CertificateDto } from './dto/certificate.dto.js';
import { type TenantCertificateEntity } from './tenant-certificate.entity.js';

/** A tenant's certificate as the API shows it. */
export function viewOf(row: TenantCertificateEntity): CertificateDto {
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    purpose: row.purpose,
    subject: row.subject,
    dnsNames: row.dnsNames,
    uris: row.uris,
    issuer: row.issuer,
    serialNumber: row.serialNumber,
    notBefore: new Date(row.notBefore).toISOString(),
    notAfter: new Date(row.notAfter).toISOString(),
    x5c: row.x5c,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}
