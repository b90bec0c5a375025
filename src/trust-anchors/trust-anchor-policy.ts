import { Injectable } from '@nestjs/common';
import { type Certificate, parseCertificate } from '../x509/chain.js';
import { TrustAnchorsService } from './trust-anchors.service.js';

/**
 * Which certificates an `x5c` chain must end at for a tenant's verification (HAIP 1.0): the
 * tenant's anchors, or undefined when it has none, meaning any chain that holds together
 * (docs/trust-anchors.md). `parseCertificate` remembers what it parsed: a certificate never changes.
 */
@Injectable()
export class TrustAnchorPolicy {
  constructor(private readonly anchors: TrustAnchorsService) {}

  async anchorsFor(tenantId: string): Promise<Certificate[] | undefined> {
    const rows = await this.anchors.certificatesOf(tenantId);
    return anchorsFrom(rows.map(({ certificate }) => certificate));
  }
}

/**
 * The policy over PEMs already read (the tenant's `tenant_trust_anchor` rows read with its
 * trusted issuers): undefined without any.
 */
export function anchorsFrom(certificates: readonly string[]): Certificate[] | undefined {
  if (certificates.length === 0) return undefined;
  return certificates.flatMap((certificate) => {
    const anchor = parseCertificate(certificate);
    // A row that no longer parses trusts nothing.
    return typeof anchor === 'string' ? [] : [anchor];
  });
}
