import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's trusted issuers list: each route on its success and error paths. */
export function trustedIssuerCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/trusted-issuers';
  const owner = tenantHeader('acme');
  let next = 0;
  const issuer = () => `did:example:contract-${next++}`;
  const create = (request: ApiRequest = {}) =>
    post(`${base}/create`, { ...owner, body: { issuer: issuer() }, ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  const unknownId = '2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a';
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createTrustedIssuer', 201, 'an issuer is added', () => create()],
    [
      'createTrustedIssuer',
      400,
      'the issuer is not a URL',
      () => create({ body: { issuer: 'not a url' } }),
    ],
    ['createTrustedIssuer', 401, 'no token is sent', () => create(anonymous)],
    ['createTrustedIssuer', 403, 'an agent-user names another tenant', () => create(forbidden)],
    ['createTrustedIssuer', 404, 'the tenant does not exist', () => create(tenantHeader('nobody'))],
    [
      'createTrustedIssuer',
      409,
      'the issuer is listed already',
      async () => {
        await create({ body: { issuer: 'did:example:twice' } });
        return create({ body: { issuer: 'did:example:twice' } });
      },
    ],
    [
      'createTrustedIssuer',
      413,
      'the body is too large',
      () => create({ body: { issuer: 'did:example:big', description: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'createTrustedIssuer',
      415,
      'the body is not JSON',
      () =>
        post(`${base}/create`, {
          body: 'x',
          headers: { 'content-type': 'text/plain', ...owner.headers },
        }),
    ],
    [
      'createTrustedIssuer',
      422,
      'the tenant keeps 100 already',
      async () => {
        const full = tenantHeader('other');
        for (let count = 0; count < 100; count++) {
          await post(`${base}/create`, { ...full, body: { issuer: `did:example:${count}` } });
        }
        return post(`${base}/create`, { ...full, body: { issuer: 'did:example:one-more' } });
      },
    ],
    ['listTrustedIssuers', 200, 'the entries are listed', () => send(base, owner)],
    [
      'listTrustedIssuers',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'secret' } }),
    ],
    [
      'listTrustedIssuers',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listTrustedIssuers',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listTrustedIssuers',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
    ['getTrustedIssuer', (id) => `${base}/${id}`, 'GET', 200],
    ['deleteTrustedIssuer', (id) => `${base}/${id}/delete`, 'POST', 204],
  ];
  for (const [operationId, path, method, success] of byId) {
    const call = async (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, ...request });
    table.push(
      [operationId, success, 'the entry is there', async () => call(await created())],
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
      [operationId, 404, 'there is no such entry', () => call(unknownId)],
    );
  }
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
