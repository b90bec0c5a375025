import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';

/** What a tenant trusts, as stored: its trusted issuers' ids and its X.509 anchors' PEMs. */
export interface TenantTrust {
  issuers: string[];
  anchors: string[];
}

/**
 * Both lists as two columns of a select list, for the tenant the SQL expression `tenantId` names,
 * through what their owners publish (trusted-issuers/'s `tenant_trusted_issuer`, trust-anchors/'s
 * `tenant_trust_anchor`; docs/architecture.md). Each list is bounded by its owner's cap per tenant;
 * read at every answer, never kept, so that a change is seen at once by every instance.
 */
export function tenantTrustColumns(tenantId: string): string {
  return `ARRAY(SELECT i.issuer FROM tenant_trusted_issuer i WHERE i.tenant_id = ${tenantId})
            AS issuers,
          ARRAY(SELECT a.certificate FROM tenant_trust_anchor a WHERE a.tenant_id = ${tenantId}
                 ORDER BY a.fingerprint) AS anchors`;
}

const trustRead = `SELECT ${tenantTrustColumns('$1')}`;

/** A tenant's trusted issuers and trust anchors, read together for a wallet presentation. */
@Injectable()
export class TenantTrustRead {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async of(tenantId: string): Promise<TenantTrust> {
    const [row] = await this.dataSource.query<TenantTrust[]>(trustRead, [tenantId]);
    return row;
  }
}
