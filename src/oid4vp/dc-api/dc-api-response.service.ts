import { Injectable } from '@nestjs/common';
import { DomainException } from '../../common/problem/domain.exception.js';
import { type PresentationRequestDto } from '../requests/dto/presentation-request-answer.dto.js';
import {
  requestNotFound,
  requestNotPending,
  requestOfOtherMode,
} from '../requests/presentation-request.errors.js';
import { statusOf } from '../requests/presentation-request-view.js';
import {
  PresentationRequestsService,
  uuidPattern,
} from '../requests/presentation-requests.service.js';
import { WalletRequests } from '../requests/wallet-requests.js';
import { dcApiBinding } from '../wallet/answer-binding.js';
import { AnswerSettlement } from '../wallet/answer-settlement.service.js';
import { dcApiVpToken } from './dc-api-answer.js';
import { type DcApiResponseDto } from './dto/dc-api-response.dto.js';

/**
 * What the relying party's back end posts once its page got the browser's answer (OpenID4VP 1.0
 * appendix A): settled as the response endpoint settles a wallet's answer (AnswerSettlement), bound
 * to the page's origin instead of the client id (docs/oid4vp.md, Digital Credentials API).
 */
@Injectable()
export class DcApiResponseService {
  constructor(
    private readonly requests: WalletRequests,
    private readonly settlement: AnswerSettlement,
    private readonly views: PresentationRequestsService,
  ) {}

  /** The request once the answer concluded it (verified or failed), as GET shows it. */
  async answer(
    tenantId: string,
    id: string,
    body: DcApiResponseDto,
  ): Promise<PresentationRequestDto> {
    const request = uuidPattern.test(id) ? await this.requests.findById(tenantId, id) : null;
    if (request === null) throw requestNotFound(id);
    if (request.expectedOrigins === null)
      throw requestOfOtherMode(id, 'is answered by the wallet at its response_uri, not here');
    const status = statusOf(request, this.requests.now().getTime());
    if (status !== 'pending') throw requestNotPending(id, status, 'it takes no more answers');
    const secrets = this.requests.secretsOf(request);
    const settled = await this.settlement.settle(
      request,
      () => dcApiVpToken(request, secrets, body.origin, body.data),
      await dcApiBinding(request, body.origin, secrets.responseKey),
    );
    if (settled.kind === 'refused')
      throw new DomainException(
        'PRESENTATION_ANSWER_REFUSED',
        `The answer is not bound to this request, which counts it: ${settled.reason}`,
      );
    if (settled.kind === 'late')
      throw requestNotPending(id, 'answered or past its time', 'it takes no more answers');
    return this.views.get(tenantId, id);
  }
}
