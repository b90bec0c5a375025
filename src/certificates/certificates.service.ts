import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { type DataSource, type EntityManager } from 'typeorm';
import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { pageWindow, springPage, type PageQuery } from '../common/page-query.js';
import { Settings } from '../config/settings.js';
import { violates } from '../database/constraint-violation.js';
import { TenantKeys } from '../did/tenant-keys.service.js';
import { EventOutbox } from '../events/event-outbox.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { credentialIssuerId } from '../tenancy/credential-issuer.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { parseDer, pemOf, x5cOf } from '../x509/certificate.js';
import { CertificateAuthorityService } from './certificate-authority.service.js';
import { authorityNotConfigured } from './certificate.errors.js';
import { viewOf } from './certificate-view.js';
import { type CertificateDto, type CertificatePageDto } from './dto/certificate.dto.js';
import {
  type CertificatePurpose,
  type CertificateSource,
  type TenantCertificateEntity,
} from './tenant-certificate.entity.js';
import {
  TenantCertificateRepository,
  type NewTenantCertificate,
} from './tenant-certificate.repository.js';

/** What a tenant's leaf names: its OpenID4VCI credential issuer identifier and that URL's host. */
export interface TenantNames {
  issuerUrl: string;
  host: string;
}

/** A chain ready to become the tenant's active one of its purpose (`x5c` when not said). */
export interface ChainToActivate {
  source: CertificateSource;
  purpose?: CertificatePurpose;
  kid: string;
  /** DER, leaf first, without the root. */
  chain: Buffer[];
}

/**
 * Each tenant's X.509 certificates for its ES256 key (docs/certificates.md): the one active chain the
 * issue paths put in `x5c` (HAIP 1.0), the ones it replaced, and the changes, one at a time per tenant.
 */
/** A tenant's active certificate as the issue paths read it: its chain and validity. */
export type ActiveCertificate = Pick<TenantCertificateEntity, 'x5c' | 'notBefore' | 'notAfter'>;

@Injectable()
export class CertificatesService {
  private readonly logger = new Logger('Certificates');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly audit: AuditLog,
    private readonly certificates: TenantCertificateRepository,
    private readonly authority: CertificateAuthorityService,
    private readonly keys: TenantKeys,
    private readonly tenants: TenantsService,
    private readonly outbox: EventOutbox,
  ) {}

  /**
   * The `x5c` of the tenant's ES256 key: standard base64 DER, leaf first, never the root; undefined
   * when it has no valid certificate and the service no authority. With an authority, a tenant without
   * one gets it here on first need; concurrent first needs, on any instance, keep one. `read`: the
   * active certificate a caller's statement read (`active_certificate_of`), not read again if valid.
   */
  async activeChain(tenantId: string, read?: ActiveCertificate): Promise<string[] | undefined> {
    const now = new Date(this.clock());
    if (read !== undefined && validAt(read, now)) return read.x5c;
    return this.chainOf(tenantId, 'x5c', now);
  }

  /**
   * The mdoc `x5chain` of the tenant's ES256 key: its document signer certificate (ISO/IEC 18013-5
   * Annex B.1.4) then the intermediates, standard base64 DER, never the root; issued on first need as
   * `activeChain` is; undefined when it has no valid one and the service no authority.
   */
  async documentSignerChain(tenantId: string): Promise<string[] | undefined> {
    return this.chainOf(tenantId, 'document_signer', new Date(this.clock()));
  }

  private async chainOf(
    tenantId: string,
    purpose: CertificatePurpose,
    now: Date,
  ): Promise<string[] | undefined> {
    const active = await this.certificates.activeOf(tenantId, purpose);
    if (active !== undefined && validAt(active, now)) return active.x5c;
    const issued = await this.issueFromAuthority(tenantId, 'unless-valid', purpose);
    if (issued === undefined) return undefined;
    // Undefined: another first need activated one meanwhile, which is the tenant's chain.
    return (issued.activated ?? (await this.certificates.activeOf(tenantId, purpose)))?.x5c;
  }

  /** A certificate of `purpose` from the service's authority becomes the tenant's active one (409 without one). */
  async issue(
    tenantId: string,
    actor: Actor,
    purpose: CertificatePurpose = 'x5c',
  ): Promise<CertificateDto> {
    await this.tenants.requireTenant(tenantId);
    const activated = (await this.issueFromAuthority(tenantId, 'replace', purpose))?.activated;
    if (activated === undefined) throw authorityNotConfigured();
    this.audit.record('certificate.issue', actor, tenantId, {
      certificateId: activated.id,
      serialNumber: activated.serialNumber,
      purpose,
    });
    return viewOf(activated);
  }

  /** The tenant's certificates, newest first. */
  async list(tenantId: string, query: PageQuery): Promise<CertificatePageDto> {
    await this.tenants.requireTenant(tenantId);
    const window = pageWindow(query);
    const [rows, total] = await this.certificates.page(tenantId, window.offset, window.size);
    return springPage(rows.map(viewOf), window, total);
  }

  /** PEM of the root of the service's authority (409 without one). */
  async authorityCertificate(tenantId: string): Promise<{ certificate: string }> {
    await this.tenants.requireTenant(tenantId);
    const current = await this.authority.current();
    if (current === undefined) throw authorityNotConfigured();
    return { certificate: pemOf([current.root ?? current.chain.at(-1)!]) };
  }

  /** The dNSName entries for a host: none for an address (RFC 5280 §4.2.1.6). */
  dnsNamesFor(host: string): string[] {
    return isIP(host.replace(/^\[|\]$/g, '')) === 0 ? [host] : [];
  }

  /** What the tenant's leaf names (docs/certificates.md, The leaf). */
  namesOf(tenantId: string): TenantNames {
    const issuerUrl = credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
    return { issuerUrl, host: new URL(issuerUrl).hostname };
  }

  /**
   * Makes `chain` the tenant's active one in one transaction under the tenant's lock: the active one
   * it replaces is superseded (or expired, with its event, when past its time). `unless-valid` keeps
   * an active one still valid instead (a concurrent first need made it).
   */
  async activate(
    tenantId: string,
    toActivate: ChainToActivate,
    mode: 'replace' | 'unless-valid',
  ): Promise<TenantCertificateEntity | undefined> {
    const leaf = parseDer(toActivate.chain[0]).facts;
    const purpose = toActivate.purpose ?? 'x5c';
    const row: NewTenantCertificate = {
      id: randomUUID(),
      tenantId,
      status: 'active',
      source: toActivate.source,
      purpose,
      kid: toActivate.kid,
      subject: storable(leaf.subject).slice(0, 1024),
      issuer: storable(leaf.issuer).slice(0, 1024),
      serialNumber: leaf.serialNumber.slice(0, 64),
      dnsNames: leaf.dnsNames.map(storable),
      uris: leaf.uris.map(storable),
      x5c: x5cOf(toActivate.chain),
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
    };
    return this.dataSource
      .transaction(async (manager) => {
        await this.certificates.lock(manager, tenantId);
        // Read after the lock: a concurrent first need's leaf may start after this call began.
        const now = new Date(this.clock());
        if (mode === 'unless-valid') {
          const active = await this.certificates.activeOf(tenantId, purpose, manager);
          if (active !== undefined && validAt(active, now)) return undefined;
        }
        await this.retire(manager, tenantId, now, purpose);
        const inserted = await this.certificates.insert(manager, row);
        // An import's answer commits with its effect (docs/api.md, Retrying safely); a first need
        // inside another request's transaction-less path keeps nothing of its own.
        if (mode === 'replace') await keepIdempotentAnswer(manager, viewOf(inserted));
        return inserted;
      })
      .catch((error: unknown) => {
        // The tenant was deleted since it was checked: its foreign key refuses the row.
        if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
        throw error;
      });
  }

  /** Retires the active certificate of a purpose; one past its time becomes expired, with its event. */
  private async retire(
    manager: EntityManager,
    tenantId: string,
    now: Date,
    purpose: CertificatePurpose,
  ): Promise<void> {
    for (const retired of await this.certificates.retireActive(manager, tenantId, now, purpose)) {
      if (retired.status !== 'expired') continue;
      await this.outbox.emit(manager, {
        type: 'certificate.expired',
        tenantId,
        data: { certificateId: retired.id, notAfter: new Date(retired.notAfter).toISOString() },
      });
    }
  }

  /**
   * A leaf from the authority for the tenant's ES256 key, activated (`activated` undefined: an active
   * one was valid, in `unless-valid` mode); undefined when the service has no authority.
   */
  private async issueFromAuthority(
    tenantId: string,
    mode: 'replace' | 'unless-valid',
    purpose: CertificatePurpose,
  ): Promise<{ activated: TenantCertificateEntity | undefined } | undefined> {
    if ((await this.authority.current()) === undefined) return undefined;
    const key = await this.keys.es256SigningKey(tenantId);
    const { issuerUrl, host } = this.namesOf(tenantId);
    const now = this.clock();
    const publicJwk = {
      kty: 'EC' as const,
      crv: 'P-256' as const,
      x: key.publicJwk.x,
      y: key.publicJwk.y,
    };
    const validity = {
      notBefore: new Date(now),
      notAfter: new Date(now + this.settings.CERTIFICATE_VALIDITY_DAYS * 86_400_000),
    };
    const issued =
      purpose === 'document_signer'
        ? await this.authority.issueDocumentSigner({
            commonName: tenantId,
            country: this.settings.MDOC_ISSUER_COUNTRY,
            publicJwk,
            issuerUri: issuerUrl,
            ...validity,
          })
        : await this.authority.issue({
            commonName: tenantId,
            publicJwk,
            dnsNames: this.dnsNamesFor(host),
            uris: [issuerUrl],
            ...validity,
          });
    if (issued === undefined) return undefined;
    const { chain, root } = issued.authority;
    // HAIP 1.0: the x5c ends before the trust anchor.
    const intermediates = root === undefined ? chain : chain.slice(0, -1);
    const toActivate = {
      source: 'authority' as const,
      purpose,
      kid: key.kid,
      chain: [issued.leaf, ...intermediates],
    };
    const activated = await this.activate(tenantId, toActivate, mode);
    if (activated !== undefined && mode === 'unless-valid') {
      // No caller asked, so no audit line: the operator still sees which certificate appeared.
      this.logger.log({
        msg: `Tenant ${tenantId} had no valid ${purpose} certificate: the authority issued ${activated.serialNumber}`,
        event: 'certificate.issued-on-need',
        tenantId,
        purpose,
        certificateId: activated.id,
      });
    }
    return { activated };
  }
}

/** PostgreSQL text and jsonb hold no U+0000, which a certificate's UTF8String may. */
function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}

function validAt(
  certificate: Pick<TenantCertificateEntity, 'notBefore' | 'notAfter'>,
  now: Date,
): boolean {
  return new Date(certificate.notBefore) <= now && now < new Date(certificate.notAfter);
}
