import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, QueryFailedError, Repository } from 'typeorm';
import { DomainException } from '../common/problem/domain.exception.js';
import { type Caller } from '../auth/caller.js';
import { DidService } from '../did/did.service.js';
import { type TenantDto, type TenantPageDto } from './dto/tenant.dto.js';
import { type ListTenantsQuery, type SortField } from './dto/list-tenants.query.js';
import { TenantEntity } from './tenant.entity.js';

export interface NewTenant {
  id: string;
  label: string;
  imageUrl?: string | null;
}

export interface TenantChanges {
  label?: string;
  /** null or '' removes the image. */
  imageUrl?: string | null;
}

/** Which tenants a caller may see: all of them, or only those listed. */
export type TenantVisibility = { all: true } | { all: false; tenantIds: readonly string[] };

const sortColumns: Record<SortField, string> = {
  id: 'tenant.id',
  label: 'tenant.label',
  createdAt: 'tenant.createdAt',
  updatedAt: 'tenant.updatedAt',
};

const uniqueViolation = '23505';

@Injectable()
export class TenantsService {
  private readonly logger = new Logger(TenantsService.name);

  constructor(
    @InjectRepository(TenantEntity) private readonly tenants: Repository<TenantEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dids: DidService,
  ) {}

  /** Creates the tenant and its DID in one transaction: there is never a tenant without a DID. */
  async create(input: NewTenant, actor: Caller): Promise<TenantDto> {
    try {
      const id = await this.dataSource.transaction(async (manager) => {
        await manager.insert(TenantEntity, {
          id: input.id,
          label: input.label,
          imageUrl: emptyToNull(input.imageUrl),
        });
        await this.dids.createForTenant(manager, input.id);
        return input.id;
      });
      this.audit('tenant.create', id, actor);
      return await this.get(id);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainException(
          'TENANT_ALREADY_EXISTS',
          `A tenant with id '${input.id}' already exists.`,
          [{ field: 'id', message: 'is taken' }],
        );
      }
      throw error;
    }
  }

  async update(id: string, changes: TenantChanges, actor: Caller): Promise<TenantDto> {
    if (changes.label === undefined && changes.imageUrl === undefined) {
      throw new DomainException('NOTHING_TO_UPDATE', 'Give a new label, imageUrl or both.', [
        { field: 'label', message: 'or imageUrl is required' },
      ]);
    }
    const values: Partial<TenantEntity> = {};
    if (changes.label !== undefined) values.label = changes.label;
    if (changes.imageUrl !== undefined) values.imageUrl = emptyToNull(changes.imageUrl);
    const result = await this.tenants
      .createQueryBuilder()
      .update(TenantEntity)
      .set({ ...values, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .execute();
    if (result.affected === 0) throw tenantNotFound(id);
    this.audit('tenant.update', id, actor, Object.keys(values));
    return this.get(id);
  }

  /** Deletes the tenant; its DID row and sealed private key go with it (ON DELETE CASCADE). */
  async delete(id: string, actor: Caller): Promise<void> {
    const result = await this.tenants.delete({ id });
    if (result.affected === 0) throw tenantNotFound(id);
    this.audit('tenant.delete', id, actor);
  }

  /** One audit line per change: what, which tenant, who (api.md; issue: operations). */
  private audit(action: string, tenantId: string, actor: Caller, fields?: string[]): void {
    this.logger.log({
      msg: `audit ${action} ${tenantId} by ${actor.username ?? actor.subject}`,
      audit: action,
      tenantId,
      actor: actor.username ?? actor.subject,
      actorSubject: actor.subject,
      client: actor.clientId,
      fields,
    });
  }

  async get(id: string, visibility: TenantVisibility = { all: true }): Promise<TenantDto> {
    if (!visibility.all && !visibility.tenantIds.includes(id)) {
      // Outside the caller's claim: refused whether or not it exists (no enumeration).
      throw new DomainException('FORBIDDEN', `The caller may not see tenant '${id}'.`);
    }
    const tenant = await this.baseQuery().where('tenant.id = :id', { id }).getOne();
    if (tenant === null) throw tenantNotFound(id);
    return toTenantDto(tenant);
  }

  async assertExists(id: string): Promise<void> {
    if (!(await this.tenants.exists({ where: { id } }))) throw tenantNotFound(id);
  }

  async list(
    query: ListTenantsQuery,
    visibility: TenantVisibility = { all: true },
  ): Promise<TenantPageDto> {
    const page = query.page ?? 0;
    const size = query.size ?? 20;
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    if (!visibility.all && visibility.tenantIds.length === 0) {
      return { content: [], number: page, size, totalElements: 0, totalPages: 0 };
    }
    const builder = this.baseQuery();
    if (!visibility.all)
      builder.andWhere('tenant.id IN (:...visible)', { visible: visibility.tenantIds });
    if (query.q !== undefined && query.q !== '') {
      builder.andWhere('(tenant.id ILIKE :pattern OR tenant.label ILIKE :pattern)', {
        pattern: `%${escapeLike(query.q)}%`,
      });
    }
    const [tenants, total] = await builder
      .orderBy(sortColumns[field], order)
      .addOrderBy('tenant.id', order)
      .skip(page * size)
      .take(size)
      .getManyAndCount();
    return {
      content: tenants.map(toTenantDto),
      number: page,
      size,
      totalElements: total,
      totalPages: Math.ceil(total / size),
    };
  }

  private baseQuery() {
    return this.tenants
      .createQueryBuilder('tenant')
      .innerJoin('tenant.did', 'did')
      .addSelect('did.did');
  }
}

function toTenantDto(tenant: TenantEntity): TenantDto {
  if (tenant.did === undefined) throw new Error(`Tenant ${tenant.id} has no DID`);
  return {
    id: tenant.id,
    label: tenant.label,
    imageUrl: tenant.imageUrl,
    did: tenant.did.did,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
  };
}

export function tenantNotFound(id: string): DomainException {
  return new DomainException('TENANT_NOT_FOUND', `No tenant with id '${id}'.`);
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof QueryFailedError &&
    (error.driverError as { code?: string } | undefined)?.code === uniqueViolation
  );
}
