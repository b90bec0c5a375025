import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import { AuditLog } from '../../audit/audit-log.js';
import { oneAtATime } from '../../common/one-at-a-time.js';
import { type Actor } from '../../auth/caller.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { pageWindow, springPage } from '../../common/page-query.js';
import { qrCodes, type QrFormat } from '../../common/qr-code.js';
import { Settings } from '../../config/settings.js';
import { violates } from '../../database/constraint-violation.js';
import { withKeptAnswer } from '../../idempotency/idempotent-answer.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { TenantsService } from '../../tenants/tenants.service.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { prefixOf } from '../client-ids.js';
import { DcApiRequests } from '../dc-api-request.js';
import { referenceHashOf } from '../verifier-urls.js';
import { VerifierIdentity } from '../verifier-identity.service.js';
import { checkDcqlQuery } from './dcql-query.js';
import { type CreatePresentationRequestDto } from './dto/create-presentation-request.dto.js';
import { type ListPresentationRequestsQuery } from './dto/list-presentation-requests.query.js';
import {
  type CreatedPresentationRequestDto,
  type PresentationRequestDto,
  type PresentationRequestPageDto,
} from './dto/presentation-request-answer.dto.js';
import { PresentationRequestView, statusOf } from './presentation-request-view.js';
import { type PresentationRequestEntity } from './presentation-request.entity.js';
import {
  requestInvalid,
  requestOfOtherMode,
  requestNotFound,
  requestNotPending,
  requestsFull,
} from './presentation-request.errors.js';
import { PresentationRequestRepository } from './presentation-request.repository.js';
import {
  openSecrets,
  requestSecretsPurpose,
  type RequestSecrets,
} from './presentation-request.sealed-columns.js';
import { checkChannel, drawSecret, responseKey } from './request-inputs.js';
import { requestLimits } from './request-limits.js';

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A tenant's OpenID4VP presentation requests (docs/oid4vp.md, API). */
@Injectable()
export class PresentationRequestsService {
  private readonly view: PresentationRequestView;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly settings: Settings,
    private readonly audit: AuditLog,
    private readonly requests: PresentationRequestRepository,
    private readonly tenants: TenantsService,
    private readonly identity: VerifierIdentity,
    private readonly dcApiRequests: DcApiRequests,
  ) {
    this.view = new PresentationRequestView(vault, settings);
  }

  /**
   * Opens a request: the DCQL query is checked and the secrets sealed before anything is written; the
   * pending requests are then counted and the request inserted under the tenant's request-count lock,
   * the last statements before the commit, so that concurrent creates cannot pass the cap together.
   * The reference is stored hashed and sealed with the response key (direct_post.jwt).
   */
  async create(
    tenantId: string,
    input: CreatePresentationRequestDto,
    actor: Actor,
  ): Promise<CreatedPresentationRequestDto> {
    const checked = checkDcqlQuery(input.dcqlQuery);
    if ('errors' in checked) throw requestInvalid(checked.errors);
    const responseMode = input.responseMode ?? 'direct_post';
    checkChannel(input, responseMode);
    const requestUriMethod = input.requestUriMethod ?? 'get';
    // A DC API request's reference is never shown: the row is found by its id (docs/oid4vp.md).
    const secrets: RequestSecrets = { reference: drawSecret() };
    if (responseMode === 'direct_post.jwt' || responseMode === 'dc_api.jwt')
      secrets.responseKey = await responseKey();
    const id = randomUUID();
    const nonce = drawSecret();
    const now = this.clock();
    const expiresAt = new Date(
      now + (input.expiresInSeconds ?? requestLimits.defaultExpiresIn) * 1000,
    );
    const secretsSealed = this.vault.sealJson(tenantId, secrets, requestSecretsPurpose);
    await this.tenants.requireTenant(tenantId);
    const clientId = await this.identity.clientIdFor(tenantId, input.clientIdPrefix ?? undefined);
    const expectedOrigins = input.expectedOrigins ?? null;
    const answer: CreatedPresentationRequestDto = {
      id,
      status: 'pending',
      responseMode,
      clientId,
      ...(expectedOrigins === null
        ? {
            authorizationRequestUri: this.view.linkOf(
              tenantId,
              clientId,
              secrets.reference,
              requestUriMethod,
            ),
          }
        : {
            dcApiRequest: await this.dcApiRequests.requestOf({
              ...{ tenantId, clientId, responseMode, nonce, expiresAt, expectedOrigins },
              dcqlQuery: checked.query,
              responseKey: secrets.responseKey,
              now: new Date(now),
            }),
          }),
      expiresAt: expiresAt.toISOString(),
    };
    const insert = async (manager: EntityManager) => {
      const cap = requestLimits.pendingPerTenant;
      const row = {
        id,
        tenantId,
        dcqlQuery: checked.query,
        responseMode,
        requestUriMethod,
        trustedIssuers: input.trustedIssuers ?? null,
        redirectUri: input.redirectUri ?? null,
        expectedOrigins,
        clientId,
        nonce,
        state: drawSecret(),
        referenceHash: referenceHashOf(secrets.reference),
        secretsSealed,
        masterKeyId: this.vault.masterKeyId,
        expiresAt,
      };
      if (!(await this.requests.insertWithinCap(row, cap, new Date(now), manager))) {
        throw requestsFull();
      }
    };
    await oneAtATime(`oid4vp_request:${tenantId}`, () =>
      withKeptAnswer(this.dataSource, answer, insert),
    ).catch((error: unknown) => {
      // The tenant was deleted since it was checked: its foreign key refuses the request.
      if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
      throw error;
    });
    this.audit.record('oid4vp.request.create', actor, tenantId, {
      requestId: id,
      responseMode,
      clientIdPrefix: prefixOf(clientId),
      ...(expectedOrigins === null ? {} : { expectedOrigins }),
      credentialQueries: (checked.query.credentials as unknown[]).length,
    });
    return answer;
  }

  async list(
    tenantId: string,
    query: ListPresentationRequestsQuery,
  ): Promise<PresentationRequestPageDto> {
    await this.tenants.requireTenant(tenantId);
    const window = pageWindow(query);
    const [rows, total] = await this.requests.page(tenantId, {
      direction: (query.sort ?? 'createdAt,desc').endsWith(',desc') ? 'DESC' : 'ASC',
      offset: window.offset,
      size: window.size,
    });
    const now = this.clock();
    return springPage(
      rows.map((row) => this.view.of(row, now)),
      window,
      total,
    );
  }

  /** One request; a pending DC API request with its `dcApiRequest`, signed anew. */
  async get(tenantId: string, id: string): Promise<PresentationRequestDto> {
    const row = await this.find(tenantId, id);
    const now = this.clock();
    const view = this.view.of(row, now);
    if (view.status !== 'pending' || row.expectedOrigins === null) return view;
    const request = await this.dcApiRequests
      .requestOf({
        ...row,
        expectedOrigins: row.expectedOrigins,
        responseKey: openSecrets(this.vault, row).responseKey,
        now: new Date(now),
      })
      .catch((error: unknown) => {
        // The certificate changed since: the request cannot be signed as its client id any more.
        if (error instanceof DomainException) return undefined;
        throw error;
      });
    return request === undefined ? view : { ...view, dcApiRequest: request };
  }

  /** Deletes the request whatever its state: a pending one can no longer be answered. */
  async delete(tenantId: string, id: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    if (!uuidPattern.test(id) || !(await this.requests.delete(tenantId, id))) {
      throw requestNotFound(id);
    }
    this.audit.record('oid4vp.request.delete', actor, tenantId, { requestId: id });
  }

  /** The request's link as a QR code; only while it is pending. */
  async qrCode(tenantId: string, id: string, format: QrFormat): Promise<string | Buffer> {
    const row = await this.find(tenantId, id);
    if (row.expectedOrigins !== null)
      throw requestOfOtherMode(id, 'is answered over the Digital Credentials API: it has no link');
    const status = statusOf(row, this.clock());
    if (status !== 'pending') throw requestNotPending(id, status);
    return qrCodes.codeOf(this.view.storedLinkOf(row), format, row.expiresAt);
  }

  private async find(tenantId: string, id: string): Promise<PresentationRequestEntity> {
    await this.tenants.requireTenant(tenantId);
    const row = uuidPattern.test(id) ? await this.requests.findById(tenantId, id) : null;
    if (row === null) throw requestNotFound(id);
    return row;
  }
}
