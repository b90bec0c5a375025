import { AuditLog } from '../audit/audit-log.js';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, type SelectQueryBuilder } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { pageWindow, springPage } from '../common/page-query.js';
import { type Actor, type TenantVisibility } from '../auth/caller.js';
import { DidEntity } from '../did/did.entity.js';
import { DidService } from '../did/did.service.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { EventOutbox } from '../events/event-outbox.js';
import { type TenantDto, type TenantPageDto } from './dto/tenant.dto.js';
import { type ListTenantsQuery, type SortField } from './dto/list-tenants.query.js';
import { TenantEntity } from './tenant.entity.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { afterAnchorSql, TenantPageAnchors } from './tenant-page-anchors.js';

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

const sortColumns: Record<SortField, string> = {
  id: 'tenant.id',
  label: 'tenant.label',
  createdAt: 'tenant.createdAt',
  updatedAt: 'tenant.updatedAt',
};

/** Up to this many tenants an unfiltered list counts them exactly; above, it reports an estimate. */
const exactCountLimit = 10_000;

@Injectable()
export class TenantsService {
  private readonly logger = new Logger(TenantsService.name);

  constructor(
    @InjectRepository(TenantEntity) private readonly tenants: Repository<TenantEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly dids: DidService,
    private readonly outbox: EventOutbox,
    private readonly anchors: TenantPageAnchors,
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates the tenant and its DID in one transaction: there is never a tenant without a DID. The answer
   * is what the transaction wrote, so a delete landing right after the commit cannot turn it into a 404.
   */
  async create(input: NewTenant, actor: Actor): Promise<TenantDto> {
    try {
      const tenant = await this.dataSource.transaction(async (manager) => {
        const imageUrl = emptyToNull(input.imageUrl);
        const inserted = await manager.insert(TenantEntity, {
          id: input.id,
          label: input.label,
          imageUrl,
        });
        const did = await this.dids.createForTenant(manager, input.id);
        await this.outbox.emit(manager, {
          type: 'tenant.created',
          tenantId: input.id,
          data: { id: input.id, label: input.label, imageUrl, did },
        });
        const stamps = inserted.generatedMaps[0] as Pick<TenantEntity, 'createdAt' | 'updatedAt'>;
        const answer = toTenantDto({ id: input.id, label: input.label, imageUrl, ...stamps }, did);
        await keepIdempotentAnswer(manager, answer);
        return answer;
      });
      this.anchors.invalidate();
      this.audit.record('tenant.create', actor, tenant.id);
      return tenant;
    } catch (error) {
      if (violates(error, 'unique')) {
        throw new DomainException(
          'TENANT_ALREADY_EXISTS',
          `A tenant with id '${input.id}' already exists.`,
          [{ field: 'id', message: 'is taken' }],
        );
      }
      throw error;
    }
  }

  /** Whether no tenant exists at all. */
  async none(): Promise<boolean> {
    const row: unknown = await this.tenants
      .createQueryBuilder('tenant')
      .select('tenant.id')
      .limit(1)
      .getRawOne();
    return row === undefined;
  }

  /** Changes the tenant in a transaction and answers with the row it wrote. */
  async update(id: string, changes: TenantChanges, actor: Actor): Promise<TenantDto> {
    if (changes.label === undefined && changes.imageUrl === undefined) {
      throw new DomainException('NOTHING_TO_UPDATE', 'Give a new label, imageUrl or both.', [
        { field: 'label', message: 'or imageUrl is required' },
      ]);
    }
    const values: Partial<TenantEntity> = {};
    if (changes.label !== undefined) values.label = changes.label;
    if (changes.imageUrl !== undefined) values.imageUrl = emptyToNull(changes.imageUrl);
    const tenant = await this.dataSource.transaction(async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(TenantEntity)
        .set({ ...values, updatedAt: () => 'now()' })
        .where('id = :id', { id })
        .returning(['id', 'label', 'imageUrl', 'createdAt', 'updatedAt'])
        .execute();
      const [row] = result.raw as TenantRow[];
      if (row === undefined) throw tenantNotFound(id);
      // The updated row stays locked until the commit, so its DID cannot be deleted meanwhile.
      const did = await this.dids.didInTransaction(manager, id);
      await this.outbox.emit(manager, {
        type: 'tenant.updated',
        tenantId: id,
        data: { id, ...values },
      });
      const { image_url: imageUrl, created_at: createdAt, updated_at: updatedAt } = row;
      return toTenantDto({ ...row, imageUrl, createdAt, updatedAt }, did);
    });
    this.anchors.invalidate();
    this.audit.record('tenant.update', actor, id, { fields: Object.keys(values) });
    return tenant;
  }

  /** Deletes the tenant; its DID row and sealed private key go with it (ON DELETE CASCADE). */
  async delete(id: string, actor: Actor): Promise<void> {
    // A transaction of its own: a statement that runs late, after its request gave up, is never committed.
    await this.dataSource.transaction(async (manager) => {
      // First: the tenant's own subscriptions go with it, the all-tenant ones still hear of it.
      await this.outbox.emit(manager, { type: 'tenant.deleted', tenantId: id, data: { id } });
      const deleted = await manager.delete(TenantEntity, { id });
      // No tenant, no event: the transaction rolls back with the 404.
      if (deleted.affected === 0) throw tenantNotFound(id);
    });
    this.anchors.invalidate();
    this.audit.record('tenant.delete', actor, id);
  }

  async get(id: string, visibility: TenantVisibility = { all: true }): Promise<TenantDto> {
    if (!visibility.all && !visibility.tenantIds.includes(id)) {
      // Outside the caller's claim: refused whether or not it exists (no enumeration).
      throw new DomainException('FORBIDDEN', `The caller may not see tenant '${id}'.`);
    }
    const row = await this.baseQuery()
      .where('tenant.id = :id', { id })
      .getRawOne<TenantRow & { did: string }>();
    if (row === undefined) throw tenantNotFound(id);
    return fromRow(row);
  }

  async list(
    query: ListTenantsQuery,
    visibility: TenantVisibility = { all: true },
  ): Promise<TenantPageDto> {
    const window = pageWindow(query);
    const { size } = window;
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const order = direction === 'desc' ? 'DESC' : 'ASC';
    if (!visibility.all && visibility.tenantIds.length === 0) {
      return springPage([], window, 0);
    }
    // The matching tenants as ids only: filters and sort orders are all answered from indexes.
    const matching = this.tenants.createQueryBuilder('tenant').select('tenant.id', 'id');
    const filtered = !visibility.all || (query.q !== undefined && query.q !== '');
    if (!visibility.all)
      matching.andWhere('tenant.id IN (:...visible)', { visible: visibility.tenantIds });
    if (query.q !== undefined && query.q !== '') {
      // Served by the trigram indexes (migration 1795348774403) for texts of 3 or more characters.
      matching.andWhere('(tenant.id ILIKE :pattern OR tenant.label ILIKE :pattern)', {
        pattern: `%${escapeLike(query.q)}%`,
      });
    }
    // Deferred join: the page's ids come from the sort index alone (an index-only scan), and only
    // those rows are read and joined to their DID. Unfiltered, a deep page seeks from the anchor
    // before it rather than walking every row before it.
    const seek = filtered
      ? undefined
      : await this.anchors.seek(field, order === 'DESC', window.offset);
    const pageIds = matching
      .clone()
      .orderBy(sortColumns[field], order)
      .addOrderBy('tenant.id', order)
      .offset(seek?.skip ?? window.offset)
      .limit(size);
    if (seek !== undefined) {
      pageIds.andWhere(afterAnchorSql(field, order === 'DESC', ':anchorValue', ':anchorId'), {
        anchorValue: seek.after.value,
        anchorId: seek.after.id,
      });
    }
    const tenants = await this.baseQuery()
      .innerJoin(`(${pageIds.getQuery()})`, 'page', 'page.id = tenant.id')
      .setParameters(pageIds.getParameters())
      .orderBy(sortColumns[field], order)
      .addOrderBy('tenant.id', order)
      .getRawMany<TenantRow & { did: string }>();
    const total = await this.countMatching(matching, filtered, window.offset, tenants.length, size);
    return springPage(tenants.map(fromRow), window, total);
  }

  /**
   * The total of a page. Free when the page is the last one. Otherwise count(*), which reads every match:
   * cheap for a filtered list (its matches come from an index) and for a small table, but it grows with
   * the table; so an unfiltered list of more than `exactCountLimit` tenants reports PostgreSQL's estimate
   * instead (docs/api.md, Pages).
   */
  private async countMatching(
    matching: SelectQueryBuilder<TenantEntity>,
    filtered: boolean,
    offset: number,
    found: number,
    size: number,
  ): Promise<number> {
    if (found > 0 && found < size) return offset + found;
    if (found === 0 && offset === 0) return 0;
    // Rows found at this offset prove there are at least offset + found; an empty page past the end
    // proves nothing (issue found by the property tests: page 4 of 95 tenants claimed 96).
    if (!filtered) return Math.max(await this.countAllTenants(), found > 0 ? offset + found : 0);
    const row = await matching.clone().select('count(*)', 'count').getRawOne<{ count: string }>();
    return Number(row?.count ?? 0);
  }

  /**
   * All tenants, in one round trip: the planner's estimate (the tuple density of the last VACUUM or
   * ANALYZE times the table's current size, so it follows growth between autovacuum runs) when it is
   * above `exactCountLimit`, else an exact count(*), which PostgreSQL runs only in that case.
   */
  private async countAllTenants(): Promise<number> {
    const rows = await this.tenants.query<{ total: string }[]>(
      `SELECT CASE WHEN s.estimate > $1 THEN round(s.estimate)
                   ELSE (SELECT count(*) FROM tenant) END AS total
         FROM (SELECT CASE WHEN c.reltuples < 0 OR c.relpages = 0 THEN NULL
                           ELSE c.reltuples / c.relpages
                                * (pg_relation_size(c.oid) / current_setting('block_size')::int)
                      END AS estimate
                 FROM pg_class c
                WHERE c.oid = 'tenant'::regclass) AS s`,
      [exactCountLimit],
    );
    return Number(rows[0]?.total ?? 0);
  }

  /** Tenants with their DID, as rows of TenantRow's columns. */
  private baseQuery() {
    return this.tenants
      .createQueryBuilder('tenant')
      .select('tenant.id', 'id')
      .addSelect('tenant.label', 'label')
      .addSelect('tenant.imageUrl', 'image_url')
      .addSelect('tenant.createdAt', 'created_at')
      .addSelect('tenant.updatedAt', 'updated_at')
      .addSelect('did.did', 'did')
      .innerJoin(DidEntity, 'did', 'did.tenantId = tenant.id');
  }
}

/** A tenant's row as PostgreSQL returns it. */
interface TenantRow {
  id: string;
  label: string;
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A tenant read with its DID joined (baseQuery). */
function fromRow(row: TenantRow & { did: string }): TenantDto {
  const { image_url: imageUrl, created_at: createdAt, updated_at: updatedAt } = row;
  return toTenantDto({ ...row, imageUrl, createdAt, updatedAt }, row.did);
}

function toTenantDto(
  tenant: Pick<TenantEntity, 'id' | 'label' | 'imageUrl' | 'createdAt' | 'updatedAt'>,
  did: string,
): TenantDto {
  return {
    id: tenant.id,
    label: tenant.label,
    imageUrl: tenant.imageUrl,
    did,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
  };
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
