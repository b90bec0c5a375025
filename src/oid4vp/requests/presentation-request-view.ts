import { type Settings } from '../../config/settings.js';
import { type KeyVault } from '../../secrets/key-vault.js';
import { authorizationRequestUriOf, requestUriOf } from '../verifier-urls.js';
import {
  type PresentationRequestCredentialDto,
  type PresentationRequestDto,
} from './dto/presentation-request-answer.dto.js';
import {
  type PresentationRequestEntity,
  type PresentationRequestStatus,
} from './presentation-request.entity.js';
import { disclosedClaimsPurpose, openSecrets } from './presentation-request.sealed-columns.js';

/** A pending request past its time reads as expired before the expiry job marks it. */
export function statusOf(row: PresentationRequestEntity, now: number): PresentationRequestStatus {
  return row.status === 'pending' && row.expiresAt.getTime() <= now ? 'expired' : row.status;
}

/** How the API shows a presentation request: its status, its link while pending, what was presented. */
export class PresentationRequestView {
  constructor(
    private readonly vault: KeyVault,
    private readonly settings: Settings,
  ) {}

  /** The request as the API shows it at `now`. */
  of(row: PresentationRequestEntity, now: number): PresentationRequestDto {
    const status = statusOf(row, now);
    return {
      id: row.id,
      status,
      responseMode: row.responseMode,
      requestUriMethod: row.requestUriMethod,
      dcqlQuery: row.dcqlQuery,
      trustedIssuers: row.trustedIssuers,
      redirectUri: row.redirectUri,
      responseCodeSha256: row.responseCodeHash?.toString('base64url') ?? null,
      expectedOrigins: row.expectedOrigins,
      clientId: row.clientId,
      ...(status === 'pending' && row.expectedOrigins === null
        ? { authorizationRequestUri: this.storedLinkOf(row) }
        : {}),
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      endedAt: row.endedAt?.toISOString() ?? null,
      refusedAnswers: row.refusedAnswers,
      ...(status === 'failed'
        ? { outcome: { code: row.outcomeCode ?? 'failed', reason: row.outcomeReason ?? '' } }
        : {}),
      ...(status === 'verified' && row.presented !== null
        ? { presented: this.presentedOf(row) }
        : {}),
      ...(row.claimsErasedAt === null ? {} : { claimsErasedAt: row.claimsErasedAt.toISOString() }),
    };
  }

  /** The verified summary with each credential's disclosed claims, while they are kept. */
  private presentedOf(
    row: PresentationRequestEntity,
  ): Record<string, PresentationRequestCredentialDto[]> {
    const claims =
      row.claimsSealed === null
        ? {}
        : this.vault.openJson<Record<string, Record<string, unknown>[]>>(
            row.tenantId,
            row.claimsSealed,
            disclosedClaimsPurpose,
            row.claimsMasterKeyId,
          );
    return Object.fromEntries(
      Object.entries(row.presented ?? {}).map(([queryId, credentials]) => [
        queryId,
        credentials.map((credential, index) => {
          const disclosed = claims[queryId]?.[index];
          return disclosed === undefined ? credential : { ...credential, claims: disclosed };
        }),
      ]),
    );
  }

  /** The link a wallet opens, from the stored reference. */
  storedLinkOf(row: PresentationRequestEntity): string {
    const { reference } = openSecrets(this.vault, row);
    return this.linkOf(row.tenantId, row.clientId, reference, row.requestUriMethod);
  }

  linkOf(tenantId: string, clientId: string, reference: string, method: 'get' | 'post'): string {
    const requestUri = requestUriOf(this.settings.PUBLIC_BASE_URL, tenantId, reference);
    return authorizationRequestUriOf(clientId, requestUri, method);
  }
}
