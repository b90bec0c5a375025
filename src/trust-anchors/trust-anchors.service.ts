import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { oneAtATime } from '../common/one-at-a-time.js';
import { sortedPage, springPage } from '../common/page-query.js';
import { violates } from '../database/constraint-violation.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { trustedCertificateOf } from '../x509/trusted-certificate.js';
import {
  type CreateTrustAnchorDto,
  type ListTrustAnchorsQuery,
  type SortField,
  type TrustAnchorDto,
  type TrustAnchorPageDto,
} from './dto/trust-anchor.dto.js';
import { type TrustAnchorEntity } from './trust-anchor.entity.js';
import {
  certificateRefused,
  trustAnchorExists,
  trustAnchorNotFound,
  trustAnchorsFull,
} from './trust-anchor.errors.js';
import { trustAnchorLimits } from './trust-anchor-limits.js';
import { TrustAnchorRepository, type NewTrustAnchor } from './trust-anchor.repository.js';

/** A tenant's X.509 trust anchors (HAIP 1.0, x5c): the only user of their table. */
@Injectable()
export class TrustAnchorsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly anchors: TrustAnchorRepository,
    private readonly tenants: TenantsService,
  ) {}

  async list(tenantId: string, query: ListTrustAnchorsQuery): Promise<TrustAnchorPageDto> {
    await this.tenants.requireTenant(tenantId);
    const { page, ...request } = sortedPage<SortField>(query);
    const [entities, total] = await this.anchors.page(tenantId, request);
    return springPage(entities.map(viewOf), { page, size: request.size }, total);
  }

  async get(tenantId: string, id: string): Promise<TrustAnchorDto> {
    await this.tenants.requireTenant(tenantId);
    const entity = isUUID(id) ? await this.anchors.findById(tenantId, id) : null;
    if (entity === null) throw trustAnchorNotFound(id);
    return viewOf(entity);
  }

  /**
   * Adds one: a PEM certificate of a CA, or a self-signed one, not expired; the same certificate
   * twice is 409. Counted and inserted last, under the tenant's anchor-count lock (the cap).
   */
  async create(
    tenantId: string,
    input: CreateTrustAnchorDto,
    actor: Actor,
  ): Promise<TrustAnchorDto> {
    const anchor = anchorOf(tenantId, input);
    await this.tenants.requireTenant(tenantId);
    const created = await oneAtATime(`trust_anchor:${tenantId}`, () =>
      this.dataSource.transaction(async (manager) => {
        if (await this.anchors.exists(manager, tenantId, anchor.fingerprint)) {
          throw trustAnchorExists(anchor.subject);
        }
        await this.anchors.lockCount(manager, tenantId);
        if ((await this.anchors.count(manager, tenantId)) >= trustAnchorLimits.entries) {
          throw trustAnchorsFull();
        }
        const answer = viewOf(await this.anchors.insert(manager, anchor));
        await keepIdempotentAnswer(manager, answer);
        return answer;
      }),
    ).catch((error: unknown) => {
      // Added by a concurrent request since the check.
      if (violates(error, 'unique')) throw trustAnchorExists(anchor.subject);
      // The tenant was deleted since it was checked: its foreign key refuses the anchor.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('trust-anchor.create', actor, tenantId, {
      trustAnchorId: created.id,
      subject: created.subject,
      fingerprint: anchor.fingerprint,
    });
    return created;
  }

  async delete(tenantId: string, id: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    const deleted = isUUID(id) && (await this.anchors.delete(tenantId, id));
    if (!deleted) throw trustAnchorNotFound(id);
    this.audit.record('trust-anchor.delete', actor, tenantId, { trustAnchorId: id });
  }

  /** Every anchor of the tenant, by fingerprint, as PEM (at most the cap: one short query). */
  certificatesOf(tenantId: string): Promise<{ fingerprint: string; certificate: string }[]> {
    return this.anchors.certificatesOf(tenantId);
  }
}

/** The row a certificate makes, or the 400 that refuses it: nothing is stored for a refused one. */
function anchorOf(tenantId: string, input: CreateTrustAnchorDto): NewTrustAnchor {
  const facts = trustedCertificateOf(input.certificate, Date.now());
  if (typeof facts === 'string') throw certificateRefused(facts);
  return { id: randomUUID(), tenantId, label: input.label ?? null, ...facts };
}

function viewOf(entity: TrustAnchorEntity): TrustAnchorDto {
  return {
    id: entity.id,
    tenantId: entity.tenantId,
    label: entity.label,
    subject: entity.subject,
    issuer: entity.issuer,
    notBefore: entity.notBefore.toISOString(),
    notAfter: entity.notAfter.toISOString(),
    subjectKeyIdentifier: entity.subjectKeyIdentifier,
    certificate: entity.certificate,
    createdAt: entity.createdAt.toISOString(),
  };
}
