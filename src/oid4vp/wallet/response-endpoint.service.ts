import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Settings } from '../../config/settings.js';
import { invalidRequest } from '../../common/oauth-error.js';
import { type RequestSecrets } from '../requests/presentation-request.sealed-columns.js';
import { WalletRequests, type PresentationRequestEntity } from '../requests/wallet-requests.js';
import { responseUriOf } from '../verifier-urls.js';
import { redirectBinding } from './answer-binding.js';
import { AnswerSettlement } from './answer-settlement.service.js';
import { redirectWithCode } from './response-code.js';
import { answerOf, decryptAnswer, type AnswerPayload, type WalletAnswer } from './wallet-answer.js';

/**
 * The response endpoint (OpenID4VP 1.0 §8.2, §8.3): the wallet posts its answer to the request's
 * `response_uri`, bound to the request's client id; AnswerSettlement settles it (docs/oid4vp.md).
 */
@Injectable()
export class ResponseEndpointService {
  constructor(
    private readonly settings: Settings,
    private readonly requests: WalletRequests,
    private readonly settlement: AnswerSettlement,
  ) {}

  async answer(
    tenantId: string,
    reference: string,
    form: Record<string, string>,
  ): Promise<Record<string, string>> {
    const open = await this.requests.findOpenToAnswer(tenantId, reference);
    if (open === undefined) {
      answerOf(form); // A malformed form is told so first, as before.
      throw invalidRequest('There is no open request here: unknown, answered or past its time.');
    }
    const { request, secrets, trust } = open;
    const responseUri = responseUriOf(this.settings.PUBLIC_BASE_URL, tenantId, reference);
    const settled = await this.settlement.settle(
      request,
      async () => {
        const payload = await payloadOf(answerOf(form), request, secrets);
        if (!sameState(payload.state, request.state))
          throw invalidRequest('The state is not the one of this request.');
        return payload.vpToken;
      },
      await redirectBinding(request, responseUri, secrets.responseKey),
      trust,
    );
    switch (settled.kind) {
      case 'refused':
      case 'failed':
        throw invalidRequest(settled.reason);
      case 'late':
        throw invalidRequest('The request was answered already or is past its time.');
      case 'verified':
        // Same-device flows: the wallet sends the browser on with a code only this answer gave.
        return settled.responseCode === undefined
          ? {}
          : { redirect_uri: redirectWithCode(request.redirectUri!, settled.responseCode.code) };
    }
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
