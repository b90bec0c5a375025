import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { pageWindow, springPage } from '../common/page-query.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
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
    const window = pageWindow(query);
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const [entities, total] = await this.entries.page(tenantId, {
      by: field,
      direction: direction === 'desc' ? 'DESC' : 'ASC',
      offset: window.offset,
      size: window.size,
    });
    return springPage(entities.map(viewOf), window, total);
  }

  async get(tenantId: string, id: string): Promise<TrustedIssuerDto> {
    await this.tenants.requireTenant(tenantId);
    const entity = isUUID(id) ? await this.entries.findById(tenantId, id) : null;
    if (entity === null) throw trustedIssuerNotFound(id);
    return viewOf(entity);
  }

  /**
   * Adds one, under a lock of the tenant's row so that concurrent adds cannot pass the cap together;
   * an issuer already listed is 409.
   */
  async create(
    tenantId: string,
    input: CreateTrustedIssuerDto,
    actor: Actor,
  ): Promise<TrustedIssuerDto> {
    const created = await this.dataSource.transaction(async (manager) => {
      await this.tenants.requireTenant(tenantId, { manager, lock: true });
      if (await this.entries.exists(manager, tenantId, input.issuer)) {
        throw trustedIssuerExists(input.issuer);
      }
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
