import { AuditLog } from '../audit/audit-log.js';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { pageWindow, springPage } from '../common/page-query.js';
import { type Actor, type TenantVisibility } from '../auth/caller.js';
import { DidService } from '../did/did.service.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { EventOutbox } from '../events/event-outbox.js';
import { type TenantDto, type TenantPageDto } from './dto/tenant.dto.js';
import { type ListTenantsQuery, type SortField } from './dto/list-tenants.query.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { TenantPageAnchors } from './tenant-page-anchors.js';
import {
  TenantRepository,
  type TenantFilter,
  type TenantRecord,
  type TenantValues,
} from './tenant.repository.js';

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

/** Up to this many tenants an unfiltered list counts them exactly; above, it reports an estimate. */
const exactCountLimit = 10_000;

@Injectable()
export class TenantsService {
  private readonly logger = new Logger(TenantsService.name);

  constructor(
    private readonly tenants: TenantRepository,
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
        const stamps = await this.tenants.insert(
          { id: input.id, label: input.label, imageUrl },
          manager,
        );
        const did = await this.dids.createForTenant(manager, input.id);
        await this.outbox.emit(manager, {
          type: 'tenant.created',
          tenantId: input.id,
          data: { id: input.id, label: input.label, imageUrl, did },
        });
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
    return !(await this.tenants.any());
  }

  /**
   * The tenant rule of every tenant-scoped route: an unknown tenant is 404. With `lock`, inside the
   * caller's transaction (`manager`), the tenant's row stays locked until it ends (so that a delete
   * waits, and so do other changes under the same lock, and every insert of the tenant's rows at its
   * foreign key): never for a create counted against a cap (docs/architecture.md, Per-tenant caps).
   */
  async requireTenant(
    tenantId: string,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<void> {
    if (!(await this.tenants.exists(tenantId, options.lock === true, options.manager))) {
      throw tenantNotFound(tenantId);
    }
  }

  /** Changes the tenant in a transaction and answers with the row it wrote. */
  async update(id: string, changes: TenantChanges, actor: Actor): Promise<TenantDto> {
    if (changes.label === undefined && changes.imageUrl === undefined) {
      throw new DomainException('NOTHING_TO_UPDATE', 'Give a new label, imageUrl or both.', [
        { field: 'label', message: 'or imageUrl is required' },
      ]);
    }
    const values: TenantValues = {};
    if (changes.label !== undefined) values.label = changes.label;
    if (changes.imageUrl !== undefined) values.imageUrl = emptyToNull(changes.imageUrl);
    const tenant = await this.dataSource.transaction(async (manager) => {
      const row = await this.tenants.update(id, values, manager);
      if (row === undefined) throw tenantNotFound(id);
      // The updated row stays locked until the commit, so its DID cannot be deleted meanwhile.
      const did = await this.dids.didInTransaction(manager, id);
      await this.outbox.emit(manager, {
        type: 'tenant.updated',
        tenantId: id,
        data: { id, ...values },
      });
      return toTenantDto(row, did);
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
      // No tenant, no event: the transaction rolls back with the 404.
      if (!(await this.tenants.delete(id, manager))) throw tenantNotFound(id);
    });
    this.dids.forgetKeysOf(id);
    this.anchors.invalidate();
    this.audit.record('tenant.delete', actor, id);
  }

  async get(id: string, visibility: TenantVisibility = { all: true }): Promise<TenantDto> {
    if (!visibility.all && !visibility.tenantIds.includes(id)) {
      // Outside the caller's claim: refused whether or not it exists (no enumeration).
      throw new DomainException('FORBIDDEN', `The caller may not see tenant '${id}'.`);
    }
    // Both reads at once: one round trip's wait, as when the DID was joined.
    const [tenant, dids] = await Promise.all([this.tenants.find(id), this.dids.didsOf([id])]);
    const did = dids.get(id);
    // Without its DID the tenant was deleted between the reads: it is gone.
    if (tenant === undefined || did === undefined) throw tenantNotFound(id);
    return toTenantDto(tenant, did);
  }

  async list(
    query: ListTenantsQuery,
    visibility: TenantVisibility = { all: true },
  ): Promise<TenantPageDto> {
    const window = pageWindow(query);
    const { size } = window;
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const descending = direction === 'desc';
    if (!visibility.all && visibility.tenantIds.length === 0) {
      return springPage([], window, 0);
    }
    const filter: TenantFilter = {
      visibleIds: visibility.all ? undefined : visibility.tenantIds,
      q: query.q,
    };
    const filtered = !visibility.all || (query.q !== undefined && query.q !== '');
    // Unfiltered, a deep page seeks from the anchor before it rather than walking every row before it.
    const seek = filtered ? undefined : await this.anchors.seek(field, descending, window.offset);
    const tenants = await this.tenants.page(filter, {
      field,
      descending,
      offset: seek?.skip ?? window.offset,
      size,
      after: seek?.after,
    });
    // The page's DIDs and its total at once: no more waits than when the DIDs were joined.
    const [dids, total] = await Promise.all([
      this.dids.didsOf(tenants.map((tenant) => tenant.id)),
      this.countMatching(filter, filtered, window.offset, tenants.length, size),
    ]);
    // A tenant without its DID was deleted between the reads, as if the page had been read after it.
    const content = tenants.flatMap((tenant) => {
      const did = dids.get(tenant.id);
      return did === undefined ? [] : [toTenantDto(tenant, did)];
    });
    return springPage(content, window, total);
  }

  /**
   * The total of a page. Free when the page is the last one. Otherwise count(*), which reads every match:
   * cheap for a filtered list (its matches come from an index) and for a small table, but it grows with
   * the table; so an unfiltered list of more than `exactCountLimit` tenants reports PostgreSQL's estimate
   * instead (docs/api.md, Pages).
   */
  private async countMatching(
    filter: TenantFilter,
    filtered: boolean,
    offset: number,
    found: number,
    size: number,
  ): Promise<number> {
    if (found > 0 && found < size) return offset + found;
    if (found === 0 && offset === 0) return 0;
    // Rows found at this offset prove there are at least offset + found; an empty page past the end
    // proves nothing (issue found by the property tests: page 4 of 95 tenants claimed 96).
    if (!filtered) {
      return Math.max(await this.tenants.countAll(exactCountLimit), found > 0 ? offset + found : 0);
    }
    return this.tenants.count(filter);
  }
}

function toTenantDto(tenant: TenantRecord, did: string): TenantDto {
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
