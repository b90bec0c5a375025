import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type EntityManager, Repository, type SelectQueryBuilder } from 'typeorm';
import { type SortField } from './dto/list-tenants.query.js';
import { TenantEntity } from './tenant.entity.js';
import { sortKeys, type AnchorKey, type TenantPageQuery } from './tenant-sort-keys.js';

/** A tenant as the table holds it. */
export type TenantRecord = Pick<
  TenantEntity,
  'id' | 'label' | 'imageUrl' | 'createdAt' | 'updatedAt'
>;

export type NewTenantRecord = Pick<TenantEntity, 'id' | 'label' | 'imageUrl'>;

export type TenantValues = Partial<Pick<TenantEntity, 'label' | 'imageUrl'>>;

/** Which tenants a list matches: those visible to the caller (all when absent) and matching `q`. */
export interface TenantFilter {
  visibleIds?: readonly string[];
  q?: string;
}

/**
 * All tenants, in one round trip: the planner's estimate (the tuple density of the last VACUUM or
 * ANALYZE times the table's current size, so it follows growth between autovacuum runs) when it is
 * above $1, else an exact count(*), which PostgreSQL runs only in that case.
 */
const countAllSql = `SELECT CASE WHEN s.estimate > $1 THEN round(s.estimate)
                   ELSE (SELECT count(*) FROM tenant) END AS total
         FROM (SELECT CASE WHEN c.reltuples < 0 OR c.relpages = 0 THEN NULL
                           ELSE c.reltuples / c.relpages
                                * (pg_relation_size(c.oid) / current_setting('block_size')::int)
                      END AS estimate
                 FROM pg_class c
                WHERE c.oid = 'tenant'::regclass) AS s`;

/** The tenant rule of tenant-scoped routes; FOR UPDATE keeps the row locked until the transaction ends. */
const existsSql = 'SELECT 1 FROM tenant WHERE id = $1';
const existsLockedSql = 'SELECT 1 FROM tenant WHERE id = $1 FOR UPDATE';

/** The only reader and writer of the tenant table. */
@Injectable()
export class TenantRepository {
  constructor(@InjectRepository(TenantEntity) private readonly tenants: Repository<TenantEntity>) {}

  /** Writes the tenant in the caller's transaction; answers the timestamps PostgreSQL gave it. */
  async insert(
    tenant: NewTenantRecord,
    manager: EntityManager,
  ): Promise<Pick<TenantRecord, 'createdAt' | 'updatedAt'>> {
    const inserted = await manager.insert(TenantEntity, tenant);
    return inserted.generatedMaps[0] as Pick<TenantRecord, 'createdAt' | 'updatedAt'>;
  }

  /** Changes the tenant in the caller's transaction (its row stays locked until the commit). */
  async update(
    id: string,
    values: TenantValues,
    manager: EntityManager,
  ): Promise<TenantRecord | undefined> {
    const result = await manager
      .createQueryBuilder()
      .update(TenantEntity)
      .set({ ...values, updatedAt: () => 'now()' })
      .where('id = :id', { id })
      .returning(['id', 'label', 'imageUrl', 'createdAt', 'updatedAt'])
      .execute();
    const [row] = result.raw as TenantRow[];
    return row === undefined ? undefined : recordOf(row);
  }

  /** Deletes the tenant in the caller's transaction; whether there was one. */
  async delete(id: string, manager: EntityManager): Promise<boolean> {
    const deleted = await manager.delete(TenantEntity, { id });
    return deleted.affected !== 0;
  }

  /** Whether the tenant exists; with `lock`, in the caller's transaction, its row stays locked. */
  async exists(
    id: string,
    lock: boolean,
    manager: EntityManager = this.tenants.manager,
  ): Promise<boolean> {
    const found = await manager.query<unknown[]>(lock ? existsLockedSql : existsSql, [id]);
    return found.length > 0;
  }

  /** Whether any tenant exists. */
  async any(): Promise<boolean> {
    const row: unknown = await this.tenants
      .createQueryBuilder('tenant')
      .select('tenant.id')
      .limit(1)
      .getRawOne();
    return row !== undefined;
  }

  async find(id: string): Promise<TenantRecord | undefined> {
    const row = await this.columns().where('tenant.id = :id', { id }).getRawOne<TenantRow>();
    return row === undefined ? undefined : recordOf(row);
  }

  /**
   * A page of the matching tenants. Deferred join: the page's ids come from the sort index alone (an
   * index-only scan), and only those rows are read. After an anchor, it seeks there in the sort index
   * rather than walking every row before it.
   */
  async page(filter: TenantFilter, query: TenantPageQuery): Promise<TenantRecord[]> {
    const key = sortKeys[query.field];
    const order = query.descending ? 'DESC' : 'ASC';
    const pageIds = this.matching(filter)
      .orderBy(key.property, order)
      .addOrderBy('tenant.id', order)
      .offset(query.offset)
      .limit(query.size);
    if (query.after !== undefined) {
      pageIds.andWhere(key.after[order], {
        anchorValue: query.after.value,
        anchorId: query.after.id,
      });
    }
    const rows = await this.columns()
      .innerJoin(`(${pageIds.getQuery()})`, 'page', 'page.id = tenant.id')
      .setParameters(pageIds.getParameters())
      .orderBy(key.property, order)
      .addOrderBy('tenant.id', order)
      .getRawMany<TenantRow>();
    return rows.map(recordOf);
  }

  /** How many tenants match: count(*), which reads every match (from an index when filtered). */
  async count(filter: TenantFilter): Promise<number> {
    const row = await this.matching(filter)
      .select('count(*)', 'count')
      .getRawOne<{ count: string }>();
    return Number(row?.count ?? 0);
  }

  /** All tenants: exact up to `exactLimit`, PostgreSQL's estimate above it (countAllSql). */
  async countAll(exactLimit: number): Promise<number> {
    const rows = await this.tenants.query<{ total: string }[]>(countAllSql, [exactLimit]);
    return Number(rows[0]?.total ?? 0);
  }

  /**
   * The sort keys of every `every`-th tenant of the unfiltered list in the given order, after `after`
   * (from the start when undefined), over the next `rows` rows.
   */
  async anchorKeys(
    field: SortField,
    descending: boolean,
    after: AnchorKey | undefined,
    every: number,
    rows: number,
  ): Promise<AnchorKey[]> {
    const key = sortKeys[field];
    const order = descending ? 'DESC' : 'ASC';
    const walked = this.tenants
      .createQueryBuilder('tenant')
      .select(key.text, 'value')
      .addSelect('tenant.id', 'id')
      .addSelect(key.numbered[order], 'n')
      .orderBy(key.property, order)
      .addOrderBy('tenant.id', order)
      .limit(rows);
    if (after !== undefined) {
      walked.where(key.after[order], { anchorValue: after.value, anchorId: after.id });
    }
    return this.tenants.manager
      .createQueryBuilder()
      .select('walked.value', 'value')
      .addSelect('walked.id', 'id')
      .from(`(${walked.getQuery()})`, 'walked')
      .setParameters(walked.getParameters())
      .where('walked.n % :every = 0', { every })
      .orderBy('walked.n')
      .getRawMany<AnchorKey>();
  }

  /** The matching tenants as ids only: filters and sort orders are all answered from indexes. */
  private matching(filter: TenantFilter): SelectQueryBuilder<TenantEntity> {
    const matching = this.tenants.createQueryBuilder('tenant').select('tenant.id', 'id');
    if (filter.visibleIds !== undefined) {
      matching.andWhere('tenant.id IN (:...visible)', { visible: filter.visibleIds });
    }
    if (filter.q !== undefined && filter.q !== '') {
      // Served by the trigram indexes (migration 1795348774403) for texts of 3 or more characters.
      matching.andWhere('(tenant.id ILIKE :pattern OR tenant.label ILIKE :pattern)', {
        pattern: `%${escapeLike(filter.q)}%`,
      });
    }
    return matching;
  }

  /** Tenants as rows of TenantRow's columns. */
  private columns(): SelectQueryBuilder<TenantEntity> {
    return this.tenants
      .createQueryBuilder('tenant')
      .select('tenant.id', 'id')
      .addSelect('tenant.label', 'label')
      .addSelect('tenant.imageUrl', 'image_url')
      .addSelect('tenant.createdAt', 'created_at')
      .addSelect('tenant.updatedAt', 'updated_at');
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

function recordOf(row: TenantRow): TenantRecord {
  return {
    id: row.id,
    label: row.label,
    imageUrl: row.image_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
