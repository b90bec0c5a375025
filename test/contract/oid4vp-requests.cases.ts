import { queryDatabase } from '../support/database.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** The DCQL query the request cases ask with (idempotency.cases.ts asks with it too). */
export const presentationQuery = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://acme.example/credentials/badge'] },
      claims: [{ path: ['given_name'] }],
    },
  ],
};

/** The tenant's OpenID4VP presentation requests: every documented answer. */
export function oid4vpRequestCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/oid4vp/requests';
  const owner = tenantHeader('acme');
  const body = { dcqlQuery: presentationQuery };
  const create = (request: ApiRequest = {}) => post(base, { ...owner, body, ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  /** A request that is no longer pending: past its time. */
  const expired = async () => {
    const id = await created();
    await queryDatabase(
      context.service.databaseUrl,
      `UPDATE oid4vp_request SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    return id;
  };
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const missing = '00000000-0000-4000-8000-000000000000';
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createPresentationRequest', 201, 'a request is opened', () => create()],
    [
      'createPresentationRequest',
      400,
      'the DCQL query asks for an unsupported format',
      () =>
        create({
          body: {
            dcqlQuery: {
              credentials: [{ id: 'j', format: 'jwt_vc_json', meta: { type_values: [['x']] } }],
            },
          },
        }),
    ],
    ['createPresentationRequest', 401, 'no token is sent', () => create(anonymous)],
    [
      'createPresentationRequest',
      403,
      'an agent-user names another tenant',
      () => create(forbidden),
    ],
    [
      'createPresentationRequest',
      404,
      'the tenant does not exist',
      () => create(tenantHeader('nobody')),
    ],
    [
      'createPresentationRequest',
      413,
      'the body is too large',
      () => create({ body: { dcqlQuery: { credentials: [], pad: 'x'.repeat(110 * 1024) } } }),
    ],
    [
      'createPresentationRequest',
      415,
      'the body is not JSON',
      () => post(base, { body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
    [
      'createPresentationRequest',
      422,
      'the tenant has 1000 pending requests',
      async () => {
        // The cap's worth of pending requests, written at once rather than by 1000 requests.
        await queryDatabase(
          context.service.databaseUrl,
          `INSERT INTO oid4vp_request (id, tenant_id, status, dcql_query, response_mode,
             request_uri_method, client_id, nonce, state, reference_hash, secrets_sealed, expires_at)
           SELECT gen_random_uuid(), 'demo', 'pending', '{}', 'direct_post', 'get', 'x', 'n', 's',
                  decode(md5('vp-reference' || i), 'hex'), '\\x00', now() + interval '1 hour'
             FROM generate_series(1, 1000) AS i`,
        );
        return post(base, { ...tenantHeader('demo'), body });
      },
    ],
    ['listPresentationRequests', 200, 'the requests are listed', () => send(base, owner)],
    [
      'listPresentationRequests',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'id' } }),
    ],
    [
      'listPresentationRequests',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listPresentationRequests',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listPresentationRequests',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
    ['getPresentationRequest', (id) => `${base}/${id}`, 'GET', 200],
    ['deletePresentationRequest', (id) => `${base}/${id}/delete`, 'POST', 204],
    ['getPresentationRequestQrSvg', (id) => `${base}/${id}/qr.svg`, 'GET', 200],
    ['getPresentationRequestQrPng', (id) => `${base}/${id}/qr.png`, 'GET', 200],
  ];
  for (const [operationId, path, method, success] of byId) {
    const call = (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, ...request });
    table.push(
      [operationId, success, 'the request is pending', async () => call(await created())],
      [
        operationId,
        400,
        'the tenant header is missing',
        async () => send(path(await created()), { method }),
      ],
      [operationId, 401, 'no token is sent', async () => call(await created(), anonymous)],
      [
        operationId,
        403,
        'an agent-user names another tenant',
        async () => call(await created(), forbidden),
      ],
      [operationId, 404, 'there is no such request', () => call(missing)],
    );
    if (operationId.endsWith('QrSvg') || operationId.endsWith('QrPng')) {
      table.push([operationId, 409, 'the request expired', async () => call(await expired())]);
    }
  }
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
