import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { type TenantTrust } from '../wallet-presentation.types.js';

export type { TenantTrust };

/**
 * What the tenant $1 trusts, as two columns of a select list, through what their owners publish
 * (trusted-issuers/'s `tenant_trusted_issuer`, trust-anchors/'s `tenant_trust_anchor`;
 * docs/architecture.md): the trust read below, and an answer's request read beside the request's
 * columns (oid4vp/requests/). Each list is bounded by its owner's cap per tenant, and read again for
 * each answer, never kept, so that a change counts at once on every instance.
 */
export const tenantTrustColumns = `
  ARRAY(SELECT i.issuer FROM tenant_trusted_issuer i WHERE i.tenant_id = $1) AS "tenantTrustedIssuers",
  ARRAY(SELECT a.certificate FROM tenant_trust_anchor a WHERE a.tenant_id = $1
         ORDER BY a.fingerprint) AS "tenantTrustAnchors"`;

/** The two columns as a row carries them. */
export interface TenantTrustColumns {
  tenantTrustedIssuers: string[];
  tenantTrustAnchors: string[];
}

export const tenantTrustOf = (row: TenantTrustColumns): TenantTrust => ({
  issuers: row.tenantTrustedIssuers,
  anchors: row.tenantTrustAnchors,
});

const trustRead = `SELECT ${tenantTrustColumns}`;

/** A tenant's trusted issuers and trust anchors, read together for a wallet presentation. */
@Injectable()
export class TenantTrustRead {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async of(tenantId: string): Promise<TenantTrust> {
    const [row] = await this.dataSource.query<TenantTrustColumns[]>(trustRead, [tenantId]);
    return tenantTrustOf(row);
  }
}
