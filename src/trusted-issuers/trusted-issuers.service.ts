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
import { TrustedIssuerEntity } from './trusted-issuer.entity.js';
import {
  trustedIssuerExists,
  trustedIssuerNotFound,
  trustedIssuersFull,
} from './trusted-issuer.errors.js';
import { trustedIssuerLimits } from './trusted-issuer-limits.js';

const sortColumns: Record<SortField, keyof TrustedIssuerEntity> = {
  issuer: 'issuer',
  createdAt: 'createdAt',
};

/** A tenant's trusted issuers list: the only user of its table. */
@Injectable()
export class TrustedIssuersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly tenants: TenantsService,
  ) {}

  async list(tenantId: string, query: ListTrustedIssuersQuery): Promise<TrustedIssuerPageDto> {
    await this.tenants.requireTenant(tenantId);
    const window = pageWindow(query);
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    const [entities, total] = await this.entries().findAndCount({
      where: { tenantId },
      order: { [sortColumns[field]]: order, id: order },
      skip: window.offset,
      take: window.size,
    });
    return springPage(entities.map(viewOf), window, total);
  }

  async get(tenantId: string, id: string): Promise<TrustedIssuerDto> {
    await this.tenants.requireTenant(tenantId);
    const entity = isUUID(id) ? await this.entries().findOneBy({ id, tenantId }) : null;
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
      const repository = manager.getRepository(TrustedIssuerEntity);
      if (await repository.existsBy({ tenantId, issuer: input.issuer })) {
        throw trustedIssuerExists(input.issuer);
      }
      if ((await repository.countBy({ tenantId })) >= trustedIssuerLimits.entries) {
        throw trustedIssuersFull();
      }
      const entity = await repository.save({
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
    const { affected } = isUUID(id) ? await this.entries().delete({ id, tenantId }) : {};
    if (!affected) throw trustedIssuerNotFound(id);
    this.audit.record('trusted-issuer.delete', actor, tenantId, { trustedIssuerId: id });
  }

  /** Every issuer the tenant trusts (at most the cap: one short query). */
  async issuersOf(tenantId: string): Promise<string[]> {
    const rows = await this.entries().find({ select: { issuer: true }, where: { tenantId } });
    return rows.map((row) => row.issuer);
  }

  private entries() {
    return this.dataSource.getRepository(TrustedIssuerEntity);
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
