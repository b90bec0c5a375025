import { AuditLog } from '../audit/audit-log.js';
import { oneAtATime } from '../common/one-at-a-time.js';
import { type Actor } from '../auth/caller.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { sortedPage, springPage } from '../common/page-query.js';
import { violates } from '../database/constraint-violation.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { TenantsService } from '../tenants/tenants.service.js';
import {
  type CreateTrustedIssuerDto,
  type ListTrustedIssuersQuery,
  type SortField,
  type TrustedIssuerDto,
  type TrustedIssuerPageDto,
} from './dto/trusted-issuer.dto.js';
import { type TrustedIssuerEntity } from './trusted-issuer.entity.js';
import {
  trustedIssuerExists,
  trustedIssuerNotFound,
  trustedIssuersFull,
} from './trusted-issuer.errors.js';
import { trustedIssuerLimits } from './trusted-issuer-limits.js';
import { TrustedIssuerRepository } from './trusted-issuer.repository.js';

/** A tenant's trusted issuers list: the only user of its table. */
@Injectable()
export class TrustedIssuersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly entries: TrustedIssuerRepository,
    private readonly tenants: TenantsService,
  ) {}

  async list(tenantId: string, query: ListTrustedIssuersQuery): Promise<TrustedIssuerPageDto> {
    await this.tenants.requireTenant(tenantId);
    const { page, ...request } = sortedPage<SortField>(query);
    const [entities, total] = await this.entries.page(tenantId, request);
    return springPage(entities.map(viewOf), { page, size: request.size }, total);
  }

  async get(tenantId: string, id: string): Promise<TrustedIssuerDto> {
    await this.tenants.requireTenant(tenantId);
    const entity = isUUID(id) ? await this.entries.findById(tenantId, id) : null;
    if (entity === null) throw trustedIssuerNotFound(id);
    return viewOf(entity);
  }

  /**
   * Adds one; the entries are counted and the entry inserted under the tenant's entry-count lock, the
   * last statements before the commit, so that concurrent adds cannot pass the cap together. An issuer
   * listed already is 409.
   */
  async create(
    tenantId: string,
    input: CreateTrustedIssuerDto,
    actor: Actor,
  ): Promise<TrustedIssuerDto> {
    await this.tenants.requireTenant(tenantId);
    const created = await oneAtATime(`trusted_issuer:${tenantId}`, () =>
      this.dataSource.transaction(async (manager) => {
        if (await this.entries.exists(manager, tenantId, input.issuer)) {
          throw trustedIssuerExists(input.issuer);
        }
        await this.entries.lockCount(manager, tenantId);
        if ((await this.entries.count(manager, tenantId)) >= trustedIssuerLimits.entries) {
          throw trustedIssuersFull();
        }
        const entity = await this.entries.insert(manager, {
          id: randomUUID(),
          tenantId,
          issuer: input.issuer,
          description: input.description ?? null,
        });
        const answer = viewOf(entity);
        await keepIdempotentAnswer(manager, answer);
        return answer;
      }),
    ).catch((error: unknown) => {
      // Added by a concurrent request since the check.
      if (violates(error, 'unique')) throw trustedIssuerExists(input.issuer);
      // The tenant was deleted since it was checked: its foreign key refuses the entry.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('trusted-issuer.create', actor, tenantId, {
      trustedIssuerId: created.id,
      issuer: created.issuer,
    });
    return created;
  }

  async delete(tenantId: string, id: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    const deleted = isUUID(id) && (await this.entries.delete(tenantId, id));
    if (!deleted) throw trustedIssuerNotFound(id);
    this.audit.record('trusted-issuer.delete', actor, tenantId, { trustedIssuerId: id });
  }

  /** Every issuer the tenant trusts (at most the cap: one short query). */
  issuersOf(tenantId: string): Promise<string[]> {
    return this.entries.issuersOf(tenantId);
  }
}

function viewOf(entity: TrustedIssuerEntity): TrustedIssuerDto {
  return {
    id: entity.id,
    tenantId: entity.tenantId,
    issuer: entity.issuer,
    description: entity.description,
    createdAt: entity.createdAt.toISOString(),
  };
}
