import { invalidRequest } from '../../common/oauth-error.js';
import { type RequestSecrets } from '../requests/presentation-request.sealed-columns.js';
import { type PresentationRequestEntity } from '../requests/wallet-requests.js';
import { decryptAnswer } from '../wallet/wallet-answer.js';

/**
 * The vp_token of what the browser returned (OpenID4VP 1.0 appendix A.4), from an origin the request
 * expects: in the clear for dc_api, inside the JWE `response` for dc_api.jwt. Anything else is
 * refused (an OAuthError, as AnswerSettlement reads refusals).
 */
export async function dcApiVpToken(
  request: PresentationRequestEntity,
  secrets: RequestSecrets,
  origin: string,
  data: Record<string, unknown>,
): Promise<unknown> {
  // The origins are compared as strings, as the wallet compares expected_origins (appendix A.2).
  if (!(request.expectedOrigins ?? []).includes(origin))
    throw invalidRequest(`The origin ${JSON.stringify(origin)} is not one this request expects.`);
  if (data.error !== undefined) {
    const code = typeof data.error === 'string' ? data.error.slice(0, 64) : 'not a string';
    throw invalidRequest(`The wallet answered with an error (${JSON.stringify(code)}).`);
  }
  if (request.responseMode === 'dc_api.jwt') {
    if (data.vp_token !== undefined)
      throw invalidRequest('This request expects its answer encrypted, in response, not vp_token.');
    if (typeof data.response !== 'string')
      throw invalidRequest('The answer has no response, the JWE of a dc_api.jwt answer.');
    if (secrets.responseKey === undefined) throw new Error('A dc_api.jwt request has no key');
    return (await decryptAnswer(data.response, secrets.responseKey)).vpToken;
  }
  if (data.response !== undefined)
    throw invalidRequest('This request expects vp_token in the clear, not response.');
  if (data.vp_token === undefined) throw invalidRequest('The answer has no vp_token.');
  return data.vp_token;
}
