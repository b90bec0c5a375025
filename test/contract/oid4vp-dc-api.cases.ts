import { clearDataExample } from '../../src/oid4vp/dc-api/dto/dc-api-response.dto.js';
import { membershipQueryExample } from '../../src/oid4vp/requests/dto/create-presentation-request.dto.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { tenants, type Case, type ContractContext } from './context.js';

/** The Digital Credentials API's answers handed over by the relying party: every documented answer. */
export function oid4vpDcApiCases(context: ContractContext): Case[] {
  const { post, asDemo, anonymous, tenantHeader, bigBody } = context;
  const base = '/ctrl/api/v1.0/oid4vp/requests';
  // A tenant of its own, with no trusted-issuer list that earlier cases set: the example's did:key
  // issuer is accepted. Its agent-user is not demo, so demo naming it is the 403.
  const owner = tenantHeader('dc-api-shop');
  const origin = 'https://shop.example';
  let made: Promise<ApiResponse> | undefined;
  const opened = async () => {
    made ??= post(`${tenants}/create`, { query: { id: 'dc-api-shop', label: 'Shop' } });
    await made;
    const created = await post(base, {
      ...owner,
      body: {
        dcqlQuery: membershipQueryExample,
        responseMode: 'dc_api',
        expectedOrigins: [origin],
      },
    });
    return (created.body as { id: string }).id;
  };
  const answer = (id: string, request: ApiRequest = {}) =>
    post(`${base}/${id}/dc-api-response`, {
      ...owner,
      body: { origin, data: clearDataExample },
      ...request,
    });
  const onOpened = (request: ApiRequest) => async () => answer(await opened(), request);
  const missing = '00000000-0000-4000-8000-000000000000';
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['submitDcApiResponse', 200, 'the answer verifies', async () => answer(await opened())],
    [
      'submitDcApiResponse',
      400,
      'the origin is not a string',
      onOpened({ body: { origin: 1, data: {} } }),
    ],
    ['submitDcApiResponse', 401, 'no token is sent', onOpened(anonymous)],
    [
      'submitDcApiResponse',
      403,
      'an agent-user names another tenant',
      onOpened({ ...asDemo, ...owner }),
    ],
    ['submitDcApiResponse', 404, 'the request does not exist', () => answer(missing)],
    [
      'submitDcApiResponse',
      409,
      'the request was answered already',
      async () => {
        const id = await opened();
        await answer(id);
        return answer(id);
      },
    ],
    ['submitDcApiResponse', 413, 'the body is too large', onOpened({ body: bigBody() })],
    [
      'submitDcApiResponse',
      415,
      'the body is not JSON',
      onOpened({ body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
  ];
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
