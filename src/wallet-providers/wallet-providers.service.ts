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
  type CreateWalletProviderDto,
  type ListWalletProvidersQuery,
  type SortField,
  type WalletProviderDto,
  type WalletProviderPageDto,
} from './dto/wallet-provider.dto.js';
import {
  type SetWalletAttestationPolicyDto,
  type WalletAttestationPolicyDto,
} from './dto/wallet-attestation-policy.dto.js';
import {
  settingInForce,
  type WalletAttestationSetting,
} from './wallet-attestation-policy.entity.js';
import { type WalletProviderEntity } from './wallet-provider.entity.js';
import {
  certificateRefused,
  walletProviderExists,
  walletProviderNotFound,
  walletProvidersFull,
} from './wallet-provider.errors.js';
import { walletProviderLimits } from './wallet-provider-limits.js';
import { WalletProviderRepository, type NewWalletProvider } from './wallet-provider.repository.js';

/** A tenant's trusted wallet providers (HAIP 1.0 §4.4) and its attestation setting: their tables' only user. */
@Injectable()
export class WalletProvidersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
    private readonly providers: WalletProviderRepository,
    private readonly tenants: TenantsService,
  ) {}

  async list(tenantId: string, query: ListWalletProvidersQuery): Promise<WalletProviderPageDto> {
    await this.tenants.requireTenant(tenantId);
    const { page, ...request } = sortedPage<SortField>(query);
    const [entities, total] = await this.providers.page(tenantId, request);
    return springPage(entities.map(viewOf), { page, size: request.size }, total);
  }

  async get(tenantId: string, id: string): Promise<WalletProviderDto> {
    await this.tenants.requireTenant(tenantId);
    const entity = isUUID(id) ? await this.providers.findById(tenantId, id) : null;
    if (entity === null) throw walletProviderNotFound(id);
    return viewOf(entity);
  }

  /**
   * Adds one: a PEM certificate of the provider's CA, or a self-signed one, not expired; the same certificate
   * twice is 409. Counted and inserted last, under the tenant's provider-count lock (the cap).
   */
  async create(
    tenantId: string,
    input: CreateWalletProviderDto,
    actor: Actor,
  ): Promise<WalletProviderDto> {
    const provider = providerOf(tenantId, input);
    await this.tenants.requireTenant(tenantId);
    const created = await oneAtATime(`wallet_provider:${tenantId}`, () =>
      this.dataSource.transaction(async (manager) => {
        if (await this.providers.exists(manager, tenantId, provider.fingerprint)) {
          throw walletProviderExists(provider.subject);
        }
        await this.providers.lockCount(manager, tenantId);
        if ((await this.providers.count(manager, tenantId)) >= walletProviderLimits.entries) {
          throw walletProvidersFull();
        }
        const answer = viewOf(await this.providers.insert(manager, provider));
        await keepIdempotentAnswer(manager, answer);
        return answer;
      }),
    ).catch((error: unknown) => {
      // Added by a concurrent request since the check.
      if (violates(error, 'unique')) throw walletProviderExists(provider.subject);
      // The tenant was deleted since it was checked: its foreign key refuses the provider.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('wallet-provider.create', actor, tenantId, {
      walletProviderId: created.id,
      subject: created.subject,
      fingerprint: provider.fingerprint,
    });
    return created;
  }

  async delete(tenantId: string, id: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    const deleted = isUUID(id) && (await this.providers.delete(tenantId, id));
    if (!deleted) throw walletProviderNotFound(id);
    this.audit.record('wallet-provider.delete', actor, tenantId, { walletProviderId: id });
  }

  /** The tenant's attestation setting: its explicit choice, else the default (docs/wallet-providers.md). */
  async policy(tenantId: string): Promise<WalletAttestationPolicyDto> {
    await this.tenants.requireTenant(tenantId);
    return policyView(await this.providers.policyOf(tenantId));
  }

  async setPolicy(
    tenantId: string,
    input: SetWalletAttestationPolicyDto,
    actor: Actor,
  ): Promise<WalletAttestationPolicyDto> {
    await this.tenants.requireTenant(tenantId);
    await this.providers.setPolicy(tenantId, input.walletAttestation).catch((error: unknown) => {
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('wallet-provider.policy', actor, tenantId, {
      walletAttestation: input.walletAttestation,
    });
    return this.policy(tenantId);
  }
}

/** The row a certificate makes, or the 400 that refuses it: nothing is stored for a refused one. */
function providerOf(tenantId: string, input: CreateWalletProviderDto): NewWalletProvider {
  const facts = trustedCertificateOf(input.certificate, Date.now());
  if (typeof facts === 'string') throw certificateRefused(facts);
  return { id: randomUUID(), tenantId, label: input.label ?? null, ...facts };
}

function policyView({
  setting,
  listed,
}: {
  setting: WalletAttestationSetting | null;
  listed: boolean;
}): WalletAttestationPolicyDto {
  return {
    walletAttestation: settingInForce(setting, listed),
    explicit: setting !== null,
  };
}

function viewOf(entity: WalletProviderEntity): WalletProviderDto {
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
