import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.js';
import { oneAtATime } from '../common/one-at-a-time.js';
import { type Actor } from '../auth/caller.js';
import { pageWindow, springPage } from '../common/page-query.js';
import { violates } from '../database/constraint-violation.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { type CredentialConfigurationEntity } from './credential-configuration.entity.js';
import {
  configurationExists,
  configurationNotFound,
  configurationsFull,
} from './credential-configuration.errors.js';
import { configurationLimits } from './credential-configuration-limits.js';
import { CredentialConfigurationRepository } from './credential-configuration.repository.js';
import { definitionOf } from './credential-configuration.rules.js';
import {
  configurationIdPattern,
  type CreateCredentialConfigurationDto,
  type CredentialConfigurationBodyDto,
} from './dto/credential-configuration.dto.js';
import {
  type CredentialConfigurationDto,
  type CredentialConfigurationPageDto,
} from './dto/credential-configuration-answer.dto.js';
import {
  type ListCredentialConfigurationsQuery,
  type SortField,
} from './dto/list-credential-configurations.query.js';

/** A tenant's OpenID4VCI credential configurations: the only user of their table. */
@Injectable()
export class CredentialConfigurationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly configurations: CredentialConfigurationRepository,
    private readonly tenants: TenantsService,
  ) {}

  async list(
    tenantId: string,
    query: ListCredentialConfigurationsQuery,
  ): Promise<CredentialConfigurationPageDto> {
    await this.tenants.requireTenant(tenantId);
    const window = pageWindow(query);
    const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [SortField, string?];
    const [rows, total] = await this.configurations.page(tenantId, {
      by: field,
      direction: direction === 'desc' ? 'DESC' : 'ASC',
      offset: window.offset,
      size: window.size,
    });
    return springPage(rows.map(viewOf), window, total);
  }

  async get(tenantId: string, id: string): Promise<CredentialConfigurationDto> {
    const row = configurationIdPattern.test(id)
      ? await this.configurations.findById(tenantId, id)
      : null;
    // A configuration's row implies its tenant's (foreign key): the tenant is read only to tell which is missing.
    if (row === null) {
      await this.tenants.requireTenant(tenantId);
      throw configurationNotFound(id);
    }
    return viewOf(row);
  }

  /** Every configuration of the tenant, for its issuer metadata (the caller checked the tenant). */
  async allOf(tenantId: string): Promise<CredentialConfigurationDto[]> {
    return (await this.configurations.allOf(tenantId)).map(viewOf);
  }

  /**
   * Adds one; the configurations are counted and the new one inserted under the tenant's
   * configuration-count lock, the last statements before the commit, so that concurrent creates cannot
   * pass the cap together. An id the tenant has already is 409. The body's rules are checked before
   * anything is read.
   */
  async create(
    tenantId: string,
    input: CreateCredentialConfigurationDto,
    actor: Actor,
  ): Promise<CredentialConfigurationDto> {
    const { id, ...body } = input;
    const definition = definitionOf(body);
    await this.tenants.requireTenant(tenantId);
    const created = await oneAtATime(`oid4vci_credential_configuration:${tenantId}`, () =>
      this.dataSource.transaction(async (manager) => {
        if (await this.configurations.exists(manager, tenantId, id)) throw configurationExists(id);
        await this.configurations.lockCount(manager, tenantId);
        if ((await this.configurations.count(manager, tenantId)) >= configurationLimits.perTenant) {
          throw configurationsFull();
        }
        const row = await this.configurations.insert(manager, { tenantId, id, ...definition });
        const answer = viewOf(row);
        await keepIdempotentAnswer(manager, answer);
        return answer;
      }),
    ).catch((error: unknown) => {
      // Made by a concurrent request since the check.
      if (violates(error, 'unique')) throw configurationExists(id);
      // The tenant was deleted since it was checked: its foreign key refuses the configuration.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('oid4vci.credential-configuration.create', actor, tenantId, {
      configurationId: id,
      format: created.format,
    });
    return created;
  }

  /** Replaces the definition (every field but the id; what is left out takes its default). */
  async update(
    tenantId: string,
    id: string,
    body: CredentialConfigurationBodyDto,
    actor: Actor,
  ): Promise<CredentialConfigurationDto> {
    await this.tenants.requireTenant(tenantId);
    if (!configurationIdPattern.test(id)) throw configurationNotFound(id);
    const definition = definitionOf(body);
    const updated = await this.dataSource.transaction((manager) =>
      this.configurations.replace(manager, tenantId, id, definition),
    );
    if (updated === null) throw configurationNotFound(id);
    this.audit.record('oid4vci.credential-configuration.update', actor, tenantId, {
      configurationId: id,
      format: updated.format,
    });
    return viewOf(updated);
  }

  async delete(tenantId: string, id: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    const deleted =
      configurationIdPattern.test(id) && (await this.configurations.delete(tenantId, id));
    if (!deleted) throw configurationNotFound(id);
    this.audit.record('oid4vci.credential-configuration.delete', actor, tenantId, {
      configurationId: id,
    });
  }
}

function viewOf(row: CredentialConfigurationEntity): CredentialConfigurationDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    format: row.format,
    vct: row.vct,
    doctype: row.doctype ?? null,
    credentialDefinition: row.credentialDefinition,
    claims: row.claims,
    display: row.display,
    selectivelyDisclosable: row.selectivelyDisclosable,
    expiresInSeconds: row.expiresInSeconds,
    revocable: row.revocable,
    signingAlgorithm: row.signingAlgorithm,
    cryptosuite: row.cryptosuite,
    claimsFromLogin: row.claimsFromLogin ?? null,
    keyAttestationsRequired: row.keyAttestationsRequired ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
