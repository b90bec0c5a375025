import { timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import {
  WalletPresentationsService,
  type VerifiedPresentation,
} from '../../credentials/verifying/wallet-presentations.service.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { invalidRequest, OAuthError } from '../../common/oauth-error.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { Settings } from '../../config/settings.js';
import {
  disclosedClaimsPurpose,
  type RequestSecrets,
} from '../requests/presentation-request.sealed-columns.js';
import { checkCounts, checkMatch, queryOf, type VerifiableFormat } from './dcql-match.js';
import {
  AnswerFailure,
  answerOf,
  decryptAnswer,
  presentationsOf,
  type AnswerPayload,
  type WalletAnswer,
} from './wallet-answer.js';
import {
  WalletRequests,
  type Conclusion,
  type PresentationRequestEntity,
  type PresentedCredentialSummary,
} from '../requests/wallet-requests.js';
import { disclosedClaimsOf } from './disclosed-claims.js';
import { refusalEnding } from './refused-answers.js';
import { drawResponseCode, redirectWithCode, type ResponseCode } from './response-code.js';
import { redirectSessionTranscript } from './session-transcript.js';

/** The most one answer's verification may take (issuer keys and status lists fetched meanwhile). */
export const maxVerificationMs = 20_000;

/** An open request with the reference it was answered at (its response URI's last segment). */
type OpenAt = { request: PresentationRequestEntity; secrets: RequestSecrets; reference: string };

type Outcome =
  | { verified: true; presented: Map<string, VerifiedPresentation[]> }
  | { verified: false; code: string; reason: string; bound: boolean };

/**
 * The response endpoint (OpenID4VP 1.0 §8.2, §8.3): one answer per request. An answer that verifies
 * ends the request verified; one that fails after the holder proved it answers this request (its
 * key binding or presentation proof with the request's nonce and client id) ends it failed. Any other
 * answer to an open request is refused and counted; at the bound the request fails (docs/oid4vp.md).
 */
@Injectable()
export class ResponseEndpointService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly requests: WalletRequests,
    private readonly presentations: WalletPresentationsService,
    private readonly outbox: EventOutbox,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly settings: Settings,
  ) {}

  async answer(
    tenantId: string,
    reference: string,
    form: Record<string, string>,
  ): Promise<Record<string, string>> {
    const open = await this.requests.findOpen(tenantId, reference);
    if (open === undefined) {
      answerOf(form); // A malformed form is told so first, as before.
      throw invalidRequest('There is no open request here: unknown, answered or past its time.');
    }
    const { request, secrets } = open;
    let outcome: Outcome;
    try {
      const payload = await payloadOf(answerOf(form), request, secrets);
      if (!sameState(payload.state, request.state))
        throw invalidRequest('The state is not the one of this request.');
      // Outside any transaction: no connection is held while issuer keys and status lists are fetched.
      outcome = await this.evaluate({ ...open, reference }, payload.vpToken);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      await this.refuse(request, error.description);
      throw error;
    }
    if (!outcome.verified && !outcome.bound) {
      await this.refuse(request, outcome.reason);
      throw invalidRequest(outcome.reason);
    }
    // Same-device flows: the wallet sends the browser on with a code only this answer gave.
    const responseCode =
      outcome.verified && request.redirectUri !== null ? drawResponseCode() : undefined;
    if (!(await this.conclude(request, outcome, responseCode)))
      throw invalidRequest('The request was answered already or is past its time.');
    if (!outcome.verified) throw invalidRequest(outcome.reason);
    if (responseCode === undefined) return {};
    return { redirect_uri: redirectWithCode(request.redirectUri!, responseCode.code) };
  }

  private async evaluate(open: OpenAt, vpToken: unknown): Promise<Outcome> {
    // Set once a presentation's holder proved it answers this request (nonce and client id verified).
    const progress = { bound: false };
    try {
      const { query, formats, doctypes } = queryOf(open.request.dcqlQuery);
      const presentations = presentationsOf(vpToken, [...formats.keys()]);
      checkCounts(query, presentations);
      // What an mdoc's device signature covers: this request's own values (OpenID4VP 1.0 B.2.6.1).
      const sessionTranscript = [...formats.values()].includes('mso_mdoc')
        ? await redirectSessionTranscript(open, this.settings.PUBLIC_BASE_URL)
        : undefined;
      const asked = { formats, doctypes, sessionTranscript };
      const presented = await this.verifyEach(open.request, asked, presentations, progress);
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
    asked: {
      formats: Map<string, VerifiableFormat>;
      doctypes: Map<string, string>;
      sessionTranscript?: Uint8Array;
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
            nonce: request.nonce,
            clientId: request.clientId,
            trustedIssuers: request.trustedIssuers ?? undefined,
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
        await this.concludeIn(manager, request, { verified: false, bound: false, ...ending });
    });
  }

  /** Ends the request once, with its event, in one transaction: false when it was no longer open. */
  private conclude(
    request: PresentationRequestEntity,
    outcome: Outcome,
    responseCode?: ResponseCode,
  ): Promise<boolean> {
    return this.dataSource.transaction((manager) =>
      this.concludeIn(manager, request, outcome, responseCode),
    );
  }

  private async concludeIn(
    manager: EntityManager,
    request: PresentationRequestEntity,
    outcome: Outcome,
    responseCode?: ResponseCode,
  ): Promise<boolean> {
    const conclusion = this.conclusionOf(request, outcome, responseCode);
    const now = this.requests.now();
    if (!(await this.requests.conclude(manager, request.tenantId, request.id, conclusion, now)))
      return false;
    await this.outbox.emit(manager, {
      type: outcome.verified ? 'presentation.verified' : 'presentation.failed',
      tenantId: request.tenantId,
      data: outcome.verified
        ? { requestId: request.id }
        : { requestId: request.id, code: outcome.code },
    });
    return true;
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
      claimsSealed: this.vault.seal(
        request.tenantId,
        Buffer.from(JSON.stringify(claims), 'utf8'),
        disclosedClaimsPurpose,
      ),
      claimsMasterKeyId: this.vault.masterKeyId,
      responseCodeHash: responseCode?.sha256 ?? null,
    };
  }
}

/** The answer's payload, in the form the request's response mode asks for. */
async function payloadOf(
  answer: WalletAnswer,
  request: PresentationRequestEntity,
  secrets: RequestSecrets,
): Promise<AnswerPayload> {
  if (request.responseMode === 'direct_post.jwt') {
    if (!('encrypted' in answer))
      throw invalidRequest('This request expects its answer encrypted, in response.');
    if (secrets.responseKey === undefined) throw new Error('A direct_post.jwt request has no key');
    // The state beside the JWE binds nothing; it must only not contradict the request.
    if (answer.clearState !== undefined && !sameState(answer.clearState, request.state))
      throw invalidRequest('The state beside response is not the one of this request.');
    return decryptAnswer(answer.encrypted, secrets.responseKey);
  }
  if ('encrypted' in answer)
    throw invalidRequest('This request expects vp_token and state, not response.');
  return answer.payload;
}

/** Whether the answer's state is the request's, compared in constant time. */
function sameState(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
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
