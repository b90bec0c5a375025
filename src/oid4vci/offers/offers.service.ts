import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes, randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import { AuditLog } from '../../audit/audit-log.js';
import { oneAtATime } from '../../common/one-at-a-time.js';
import { type Actor } from '../../auth/caller.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { pageWindow, springPage } from '../../common/page-query.js';
import { Settings } from '../../config/settings.js';
import { violates } from '../../database/constraint-violation.js';
import { withKeptAnswer } from '../../idempotency/idempotent-answer.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { credentialIssuerId } from '../../tenancy/credential-issuer.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { TenantsService } from '../../tenants/tenants.service.js';
import { configuredDefinitionOf } from '../credential-configuration.rules.js';
import { CredentialConfigurationsService } from '../credential-configurations.service.js';
import { type CredentialConfigurationDto } from '../dto/credential-configuration-answer.dto.js';
import { type CreateOfferDto } from './dto/create-offer.dto.js';
import { type ListOffersQuery } from './dto/list-offers.query.js';
import { type CreatedOfferDto, type OfferDto, type OfferPageDto } from './dto/offer-answer.dto.js';
import { statusOf, viewOf } from './offer-view.js';
import { type OfferEntity } from './offer.entity.js';
import { closedOfferDescription } from './offer-closed.js';
import { offerNotFound, offerNotOpen, offerReferenceNotFound, offersFull } from './offer.errors.js';
import { sealClaims } from './offer-claims.js';
import { offerLimits } from './offer-limits.js';
import { OfferRepository, type NewOffer } from './offer.repository.js';
import {
  checkClaims,
  checkGrant,
  checkMdocElements,
  credentialOfferOf,
  drawTxCode,
  offerLinkOf,
  offerUriOf,
} from './offer.rules.js';
import {
  openOfferSecrets,
  sealOfferSecrets,
  secretHash,
  txCodeHash,
  type OfferSecrets,
} from './offer-secrets.js';
import { qrCodes, type QrFormat } from '../../common/qr-code.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A reference is 32 random bytes in base64url: 43 characters. */
const referencePattern = /^[A-Za-z0-9_-]{43}$/;

/** A 256-bit secret, base64url (the pre-authorized code, the offer's reference). */
const drawSecret = () => randomBytes(32).toString('base64url');

/** A tenant's OpenID4VCI credential offers (docs/oid4vci.md, Offers). */
@Injectable()
export class OffersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly settings: Settings,
    private readonly audit: AuditLog,
    private readonly offers: OfferRepository,
    private readonly configurations: CredentialConfigurationsService,
    private readonly tenants: TenantsService,
  ) {}

  /**
   * Offers a credential of the configuration with the subject's claims: the rules are checked and the
   * answer made before anything is written; the open offers are then counted and the offer inserted
   * under the tenant's offer-count lock, the last statements before the commit, so that concurrent
   * creates cannot pass the cap together and hold each other up as little as possible. The code, the
   * reference and the transaction code are stored hashed; the first two also sealed, to serve and draw
   * the offer again.
   */
  async create(tenantId: string, input: CreateOfferDto, actor: Actor): Promise<CreatedOfferDto> {
    const configuration = await this.configurations.get(tenantId, input.credentialConfigurationId);
    const definition = configuredDefinitionOf(configuration);
    const grant = input.grant ?? 'pre-authorized_code';
    checkGrant(input, definition);
    checkClaims(input.claims, definition, Object.keys(definition.claimsFromLogin ?? {}));
    if (definition.format === 'mso_mdoc') checkMdocElements(input.claims);
    const txCode = drawTxCode(input.txCode === false ? undefined : input.txCode);
    const id = randomUUID();
    const secrets: OfferSecrets = { preAuthorizedCode: drawSecret(), reference: drawSecret() };
    const byValue = input.byValue ?? false;
    const now = this.clock();
    const expiresAt = new Date(
      now + (input.expiresInSeconds ?? offerLimits.defaultExpiresIn) * 1000,
    );
    const codeHash = txCode === null ? null : await txCodeHash(id, txCode.code);
    const offer = credentialOfferOf(
      this.issuerOf(tenantId),
      configuration.id,
      secrets.preAuthorizedCode,
      txCode?.description ?? null,
      grant,
    );
    const answer: CreatedOfferDto = {
      id,
      status: 'offered',
      credentialOffer: offer,
      credentialOfferUri: offerLinkOf(
        offer,
        offerUriOf(this.issuerOf(tenantId), secrets.reference),
        byValue,
      ),
      ...(txCode === null ? {} : { txCode: txCode.code }),
      expiresAt: expiresAt.toISOString(),
    };
    const row: NewOffer = {
      ...this.sealed(tenantId, id, secrets, input.claims),
      configurationId: configuration.id,
      configuration: definition,
      byValue,
      txCode: txCode?.description ?? null,
      txCodeHash: codeHash,
      grantType: grant,
      subject: input.subject ?? null,
      expiresAt,
    };
    await oneAtATime(`oid4vci_offer:${tenantId}`, () =>
      withKeptAnswer(this.dataSource, answer, (manager) => this.insert(row, now, manager)),
    ).catch((error: unknown) => {
      // The tenant was deleted since it was checked: its foreign key refuses the offer.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('oid4vci.offer.create', actor, tenantId, {
      offerId: id,
      configurationId: configuration.id,
      txCodeRequired: txCode !== null,
      byValue,
      grant,
    });
    return answer;
  }

  /**
   * The offer of a wallet-initiated authorization (docs/oid4vci.md, Authorization code flow), made at
   * the login's callback with the login's claims: counted like any open offer, its secrets drawn and
   * never shown, so that the token and credential endpoints treat it as the offers they know.
   */
  async createForLogin(
    tenantId: string,
    id: string,
    configuration: CredentialConfigurationDto,
    claims: Record<string, unknown>,
  ): Promise<void> {
    const secrets: OfferSecrets = { preAuthorizedCode: drawSecret(), reference: drawSecret() };
    const now = this.clock();
    const row: NewOffer = {
      ...this.sealed(tenantId, id, secrets, claims),
      configurationId: configuration.id,
      configuration: configuredDefinitionOf(configuration),
      byValue: false,
      txCode: null,
      txCodeHash: null,
      grantType: 'authorization_code',
      subject: null,
      expiresAt: new Date(now + offerLimits.defaultExpiresIn * 1000),
    };
    await oneAtATime(`oid4vci_offer:${tenantId}`, () => this.insert(row, now));
  }

  /** A new offer's secrets and claims: hashed to be found, sealed to be served and issued. */
  /** Inserts the offer while the tenant keeps fewer open ones than its cap; 422 when it keeps that many. */
  private async insert(row: NewOffer, now: number, manager?: EntityManager): Promise<void> {
    const cap = offerLimits.openPerTenant;
    if (!(await this.offers.insertWithinCap(row, cap, new Date(now), manager))) throw offersFull();
  }

  private sealed(
    tenantId: string,
    id: string,
    secrets: OfferSecrets,
    claims: Record<string, unknown>,
  ): Pick<
    NewOffer,
    | 'id'
    | 'tenantId'
    | 'claimsSealed'
    | 'claimsMasterKeyId'
    | 'secretsSealed'
    | 'masterKeyId'
    | 'preAuthorizedCodeHash'
    | 'referenceHash'
  > {
    return {
      id,
      tenantId,
      claimsSealed: sealClaims(this.vault, id, claims),
      claimsMasterKeyId: this.vault.masterKeyId,
      secretsSealed: sealOfferSecrets(this.vault, tenantId, secrets),
      masterKeyId: this.vault.masterKeyId,
      preAuthorizedCodeHash: secretHash(secrets.preAuthorizedCode),
      referenceHash: secretHash(secrets.reference),
    };
  }

  async list(tenantId: string, query: ListOffersQuery): Promise<OfferPageDto> {
    await this.tenants.requireTenant(tenantId);
    const window = pageWindow(query);
    const [rows, total] = await this.offers.page(tenantId, {
      direction: (query.sort ?? 'createdAt,desc').endsWith(',desc') ? 'DESC' : 'ASC',
      offset: window.offset,
      size: window.size,
    });
    const now = this.clock();
    return springPage(
      rows.map((row) => viewOf(row, now)),
      window,
      total,
    );
  }

  async get(tenantId: string, id: string): Promise<OfferDto> {
    return viewOf(await this.find(tenantId, id), this.clock());
  }

  /** Ends an open offer (its claims are dropped); one that is no longer open is 409. */
  async withdraw(tenantId: string, id: string, actor: Actor): Promise<OfferDto> {
    const row = await this.find(tenantId, id);
    const now = this.clock();
    const withdrawn = await this.offers.withdraw(tenantId, id, new Date(now));
    if (withdrawn === null) throw offerNotOpen(id, statusOf(row, now));
    this.audit.record('oid4vci.offer.withdraw', actor, tenantId, {
      offerId: id,
      configurationId: row.configurationId,
    });
    return viewOf(withdrawn, now);
  }

  /** The offer's link as a QR code; only for an open offer. */
  async qrCode(tenantId: string, id: string, format: QrFormat): Promise<string | Buffer> {
    const row = await this.find(tenantId, id);
    const status = statusOf(row, this.clock());
    if (status !== 'offered' && status !== 'accepted') throw offerNotOpen(id, status);
    return qrCodes.codeOf(this.linkOf(row), format, row.expiresAt);
  }

  /** The Credential Offer object of the public by-reference route (OpenID4VCI 1.0 §4.1.3). */
  async byReference(tenantId: string, reference: string): Promise<Record<string, unknown>> {
    if (!referencePattern.test(reference)) throw offerReferenceNotFound();
    const row = await this.offers.findByReference(tenantId, secretHash(reference));
    if (row === null) throw offerReferenceNotFound();
    if (statusOf(row, this.clock()) !== 'offered')
      throw offerReferenceNotFound(closedOfferDescription(row.status, row.expiresAt, this.clock()));
    const { preAuthorizedCode } = openOfferSecrets(this.vault, row);
    return credentialOfferOf(
      this.issuerOf(tenantId),
      row.configurationId,
      preAuthorizedCode,
      row.txCode,
      row.grantType,
    );
  }

  private async find(tenantId: string, id: string): Promise<OfferEntity> {
    await this.tenants.requireTenant(tenantId);
    const row = uuidPattern.test(id) ? await this.offers.findById(tenantId, id) : null;
    if (row === null) throw offerNotFound(id);
    return row;
  }

  private linkOf(row: OfferEntity): string {
    const secrets = openOfferSecrets(this.vault, row);
    const issuer = this.issuerOf(row.tenantId);
    const offer = credentialOfferOf(
      issuer,
      row.configurationId,
      secrets.preAuthorizedCode,
      row.txCode,
      row.grantType,
    );
    return offerLinkOf(offer, offerUriOf(issuer, secrets.reference), row.byValue);
  }

  private issuerOf(tenantId: string): string {
    return credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
  }
}
