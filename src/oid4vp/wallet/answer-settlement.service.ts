import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import {
  WalletPresentationsService,
  type VerifiedPresentation,
} from '../../credentials/verifying/wallet-presentations.service.js';
import { type TenantTrust } from '../../credentials/verifying/tenant-trust.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { OAuthError } from '../../common/oauth-error.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { disclosedClaimsPurpose } from '../requests/presentation-request.sealed-columns.js';
import { checkCounts, checkMatch, queryOf, type VerifiableFormat } from './dcql-match.js';
import { AnswerFailure, presentationsOf } from './wallet-answer.js';
import { sessionTranscriptOf, type AnswerBinding } from './answer-binding.js';
import {
  WalletRequests,
  type Conclusion,
  type PresentationRequestEntity,
  type PresentedCredentialSummary,
} from '../requests/wallet-requests.js';
import { disclosedClaimsOf } from './disclosed-claims.js';
import { refusalEnding } from './refused-answers.js';
import { drawResponseCode, type ResponseCode } from './response-code.js';

/** The most one answer's verification may take (issuer keys and status lists fetched meanwhile). */
export const maxVerificationMs = 20_000;

type Outcome =
  | { verified: true; presented: Map<string, VerifiedPresentation[]> }
  | { verified: false; code: string; reason: string; bound: boolean };

/** How an answer to an open request ended. */
export type Settlement =
  /** Concluded verified; with a code for the wallet to send the browser on with (same device). */
  | { kind: 'verified'; responseCode?: ResponseCode }
  /** Bound to the request and failed: concluded failed. */
  | { kind: 'failed'; reason: string }
  /** Not bound: counted, the request stays pending (or fails at the bound). */
  | { kind: 'refused'; reason: string }
  /** Another answer came first, or the request's time ran out meanwhile: nothing changed. */
  | { kind: 'late' };

/**
 * One answer per request, whichever way it came (OpenID4VP 1.0 §8.2, §8.3, appendix A): an answer
 * that verifies ends the request verified; one that fails after the holder proved it answers this
 * request (its key binding or presentation proof with the request's nonce and the binding's audience)
 * ends it failed. Any other answer to an open request is refused and counted; at the bound the request
 * fails (docs/oid4vp.md). The response endpoint and the DC API both settle their answers here.
 */
@Injectable()
export class AnswerSettlement {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly requests: WalletRequests,
    private readonly presentations: WalletPresentationsService,
    private readonly outbox: EventOutbox,
    @Inject(KeyVault) private readonly vault: KeyVault,
  ) {}

  /**
   * Settles an answer to an open request: `read` gives its vp_token, or throws an OAuthError to
   * refuse it (a malformed answer, another state or origin, a JWE that does not decrypt).
   * `tenantTrust`: the tenant's trust read with the request; undefined: read for each presentation.
   */
  async settle(
    request: PresentationRequestEntity,
    read: () => Promise<unknown>,
    binding: AnswerBinding,
    tenantTrust?: TenantTrust,
  ): Promise<Settlement> {
    let outcome: Outcome;
    try {
      const vpToken = await read();
      // Outside any transaction: no connection is held while issuer keys and status lists are fetched.
      outcome = await this.evaluate(request, vpToken, binding, tenantTrust);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      await this.refuse(request, error.description);
      return { kind: 'refused', reason: error.description };
    }
    if (!outcome.verified && !outcome.bound) {
      await this.refuse(request, outcome.reason);
      return { kind: 'refused', reason: outcome.reason };
    }
    // Same-device flows: the wallet sends the browser on with a code only this answer gave.
    const responseCode =
      outcome.verified && request.redirectUri !== null ? drawResponseCode() : undefined;
    if (!(await this.conclude(this.dataSource.manager, request, outcome, responseCode)))
      return { kind: 'late' };
    if (!outcome.verified) return { kind: 'failed', reason: outcome.reason };
    return responseCode === undefined ? { kind: 'verified' } : { kind: 'verified', responseCode };
  }

  private async evaluate(
    request: PresentationRequestEntity,
    vpToken: unknown,
    binding: AnswerBinding,
    tenantTrust: TenantTrust | undefined,
  ): Promise<Outcome> {
    // Set once a presentation's holder proved it answers this request (nonce and audience verified).
    const progress = { bound: false };
    try {
      const { query, formats, doctypes } = queryOf(request.dcqlQuery);
      const presentations = presentationsOf(vpToken, [...formats.keys()]);
      checkCounts(query, presentations);
      // What an mdoc's device signature covers: the binding's handover (OpenID4VP 1.0 B.2.6.1, B.2.6.2).
      const sessionTranscript = [...formats.values()].includes('mso_mdoc')
        ? await sessionTranscriptOf(binding)
        : undefined;
      const asked = { formats, doctypes, sessionTranscript, tenantTrust };
      const presented = await this.verifyEach(request, binding, asked, presentations, progress);
      checkMatch(query, presented);
      return { verified: true, presented };
    } catch (error) {
      if (!(error instanceof AnswerFailure)) throw error;
      return { verified: false, code: error.code, reason: error.reason, bound: progress.bound };
    }
  }

  /** Each presentation through the credentials feature's verifier, in order, under one deadline. */
  private async verifyEach(
    request: PresentationRequestEntity,
    binding: AnswerBinding,
    asked: {
      formats: Map<string, VerifiableFormat>;
      doctypes: Map<string, string>;
      sessionTranscript?: Uint8Array;
      tenantTrust?: TenantTrust;
    },
    presentations: Map<string, unknown[]>,
    progress: { bound: boolean },
  ): Promise<Map<string, VerifiedPresentation[]>> {
    const remaining = request.expiresAt.getTime() - this.requests.now().getTime();
    const signal = AbortSignal.timeout(Math.max(1, Math.min(maxVerificationMs, remaining)));
    const verified = new Map<string, VerifiedPresentation[]>();
    for (const [id, entries] of presentations) {
      const checked: VerifiedPresentation[] = [];
      for (const presentation of entries) {
        const check = await this.presentations
          .verify({
            tenantId: request.tenantId,
            format: asked.formats.get(id)!,
            presentation,
            ...(asked.formats.get(id) === 'mso_mdoc'
              ? { sessionTranscript: asked.sessionTranscript, doctype: asked.doctypes.get(id) }
              : {}),
            nonce: binding.nonce,
            clientId: binding.audience,
            trustedIssuers: request.trustedIssuers ?? undefined,
            tenantTrust: asked.tenantTrust,
            signal,
          })
          .catch((error: unknown) => {
            if (!signal.aborted) throw error;
            throw new AnswerFailure(
              'verification_timeout',
              'The presentations could not be verified in time.',
            );
          });
        if (check.verified ? check.presentation.holderBinding : check.bound) progress.bound = true;
        if (!check.verified) throw new AnswerFailure(check.code, `${id}: ${check.reason}`);
        checked.push(check.presentation);
      }
      verified.set(id, checked);
    }
    return verified;
  }

  /**
   * Counts an answer refused as not bound to the request; the one at the bound ends the request as
   * failed, with its event, in the same transaction. A request no longer open is left alone.
   */
  private refuse(request: PresentationRequestEntity, reason: string): Promise<void> {
    return this.dataSource.transaction(async (manager) => {
      const { tenantId, id } = request;
      const count = await this.requests.countRefusal(manager, tenantId, id, this.requests.now());
      const ending = count === undefined ? undefined : refusalEnding(count, reason);
      if (ending !== undefined)
        await this.conclude(manager, request, { verified: false, bound: false, ...ending });
    });
  }

  /**
   * Ends the request once, with its event, in one statement (`EventOutbox.withChange`), on `runner`:
   * the data source's manager (no transaction of its own) or a refusal's transaction. False when it
   * was no longer open.
   */
  private async conclude(
    runner: Pick<EntityManager, 'query'>,
    request: PresentationRequestEntity,
    outcome: Outcome,
    responseCode?: ResponseCode,
  ): Promise<boolean> {
    const conclusion = this.conclusionOf(request, outcome, responseCode);
    const now = this.requests.now();
    const changed = await this.outbox.withChange(
      runner,
      this.requests.concludeStatement(request.tenantId, request.id, conclusion, now),
      {
        type: outcome.verified ? 'presentation.verified' : 'presentation.failed',
        tenantId: request.tenantId,
        data: outcome.verified
          ? { requestId: request.id }
          : { requestId: request.id, code: outcome.code },
      },
    );
    return changed.length > 0;
  }

  private conclusionOf(
    request: PresentationRequestEntity,
    outcome: Outcome,
    responseCode?: ResponseCode,
  ): Conclusion {
    if (!outcome.verified)
      return {
        status: 'failed',
        outcomeCode: outcome.code,
        outcomeReason: outcome.reason.slice(0, 1024),
        presented: null,
        claimsSealed: null,
        claimsMasterKeyId: null,
        responseCodeHash: null,
      };
    // Built as entries: a query id is data, never a member an assignment could reach through.
    const entries = [...outcome.presented];
    const presented: Record<string, PresentedCredentialSummary[]> = Object.fromEntries(
      entries.map(([id, credentials]) => [id, credentials.map(summaryOf)]),
    );
    const claims = Object.fromEntries(
      entries.map(([id, credentials]) => [id, credentials.map(disclosedClaimsOf)]),
    );
    return {
      status: 'verified',
      outcomeCode: null,
      outcomeReason: null,
      presented,
      // Personal data: sealed for the tenant, erased after the retention time (docs/oid4vp.md).
      claimsSealed: this.vault.sealJson(request.tenantId, claims, disclosedClaimsPurpose),
      claimsMasterKeyId: this.vault.masterKeyId,
      responseCodeHash: responseCode?.sha256 ?? null,
    };
  }
}

/** What the outcome keeps of a credential: who issued it, what it is, the holder's key, its status. */
function summaryOf(credential: VerifiedPresentation): PresentedCredentialSummary {
  return {
    format: credential.format,
    issuer: credential.issuer,
    ...(credential.vct === undefined ? {} : { vct: credential.vct }),
    ...(credential.types === undefined ? {} : { types: credential.types }),
    ...(credential.doctype === undefined ? {} : { doctype: credential.doctype }),
    holderKeyThumbprint: credential.holderKeyThumbprint,
    status: credential.status,
    ...(credential.x5c === undefined
      ? {}
      : {
          certificateChain: {
            leafSubject: credential.x5c.leafSubject,
            anchorSubject: credential.x5c.anchorSubject,
          },
        }),
  };
}
