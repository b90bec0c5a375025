import { Injectable } from '@nestjs/common';
import { Settings } from '../../config/settings.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { cursorPage, cursorWindow } from '../../common/cursor-page.js';
import { DidService } from '../../did/did.service.js';
import { IssuedCredentialRepository, type RecordRow } from './issued-credential.repository.js';
import {
  credentialFormats,
  type CredentialFormat,
  type IssuedCredentialPageDto,
  type IssuedCredentialRecordDto,
  type ListCredentialsQuery,
} from '../dto/issued-credentials.dto.js';

/** A credential id as a cursor may hold it: a URL, so printable and without spaces (never NUL). */
const credentialIdPattern = /^[!-~\u00a0-\uffff]{1,2048}$/;

/** The issuance records of each tenant: written with the credential, read for listing. */
@Injectable()
export class IssuedCredentialsService {
  constructor(
    private readonly records: IssuedCredentialRepository,
    private readonly dids: DidService,
    private readonly settings: Settings,
  ) {}

  /** Newest first, by page number or after a cursor (docs/api.md, Pages); one more row tells if more follow. */
  async list(tenantId: string, query: ListCredentialsQuery): Promise<IssuedCredentialPageDto> {
    await this.requireTenant(tenantId);
    const window = cursorWindow(query, credentialIdPattern);
    const filter = { type: query.type, state: query.status };
    const rows = await this.records.page(tenantId, filter, {
      limit: window.size + 1,
      offset: window.offset,
      after: window.after,
    });
    const content = rows.slice(0, window.size);
    const total =
      window.after === undefined ? await this.records.count(tenantId, filter) : undefined;
    const last = content.at(-1);
    return cursorPage(
      content.map((row) => this.recordOf(tenantId, row)),
      window,
      total,
      last === undefined ? undefined : { at: last.cursor_at, id: last.id },
      rows.length > window.size,
    );
  }

  async get(tenantId: string, id: string): Promise<IssuedCredentialRecordDto> {
    await this.requireTenant(tenantId);
    const found = await this.records.findById(tenantId, id);
    if (found === undefined) {
      throw new DomainException('CREDENTIAL_NOT_FOUND', `The tenant issued no credential '${id}'.`);
    }
    return this.recordOf(tenantId, found);
  }

  /** The tenant rules of every tenant-scoped route: an unknown tenant is 404 here too. */
  private async requireTenant(tenantId: string): Promise<void> {
    await this.dids.getDid(tenantId);
  }

  private recordOf(tenantId: string, row: RecordRow): IssuedCredentialRecordDto {
    return {
      id: row.id,
      types: row.types,
      cryptosuite: row.cryptosuite,
      format: formatOf(row.format),
      doctype: row.format === 'mso_mdoc' ? (row.types[0] ?? null) : null,
      offerId: row.offer_id,
      configurationId: row.configuration_id,
      issuedAt: row.created_at.toISOString(),
      state: row.state,
      status: row.status.map((entry) => ({
        statusPurpose: entry.statusPurpose,
        statusListCredential: `${this.settings.PUBLIC_BASE_URL}/ctrl/status-lists/${tenantId}/${entry.listId}`,
        statusListIndex: String(entry.statusListIndex),
        set: entry.set,
      })),
    };
  }
}

/** The stored format; rows from before formats were recorded are ldp_vc. */
function formatOf(stored: string): CredentialFormat {
  return (credentialFormats as readonly string[]).includes(stored)
    ? (stored as CredentialFormat)
    : 'ldp_vc';
}
