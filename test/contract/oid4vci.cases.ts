import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's OpenID4VCI credential configurations and its public metadata: every documented answer. */
export function oid4vciCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/oid4vci/credential-configurations';
  const owner = tenantHeader('acme');
  const definition = {
    format: 'dc+sd-jwt',
    vct: 'https://acme.example/credentials/badge',
    claims: [{ path: ['given_name'], mandatory: true }],
    display: [{ name: 'Badge', locale: 'en' }],
  };
  let next = 0;
  const configuration = () => ({ id: `Contract_${next++}`, ...definition });
  const create = (request: ApiRequest = {}) =>
    post(`${base}/create`, { ...owner, body: configuration(), ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const big = { ...definition, display: [{ name: 'x', description: 'x'.repeat(110 * 1024) }] };
  const notJson = (path: string) =>
    post(path, { body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } });
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createCredentialConfiguration', 201, 'a configuration is added', () => create()],
    [
      'createCredentialConfiguration',
      400,
      'dc+sd-jwt comes without vct',
      () => create({ body: { id: 'No_vct', format: 'dc+sd-jwt' } }),
    ],
    ['createCredentialConfiguration', 401, 'no token is sent', () => create(anonymous)],
    [
      'createCredentialConfiguration',
      403,
      'an agent-user names another tenant',
      () => create(forbidden),
    ],
    [
      'createCredentialConfiguration',
      404,
      'the tenant does not exist',
      () => create(tenantHeader('nobody')),
    ],
    [
      'createCredentialConfiguration',
      409,
      'the id is taken',
      async () => {
        await create({ body: { id: 'Twice', ...definition } });
        return create({ body: { id: 'Twice', ...definition } });
      },
    ],
    [
      'createCredentialConfiguration',
      413,
      'the body is too large',
      () => create({ body: { id: 'Big', ...big } }),
    ],
    ['createCredentialConfiguration', 415, 'the body is not JSON', () => notJson(`${base}/create`)],
    [
      'createCredentialConfiguration',
      422,
      'the tenant keeps 50 already',
      async () => {
        const full = tenantHeader('other');
        for (let count = 0; count < 50; count++) {
          await post(`${base}/create`, { ...full, body: { id: `Full_${count}`, ...definition } });
        }
        return post(`${base}/create`, { ...full, body: { id: 'One_more', ...definition } });
      },
    ],
    ['listCredentialConfigurations', 200, 'the configurations are listed', () => send(base, owner)],
    [
      'listCredentialConfigurations',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'vct' } }),
    ],
    [
      'listCredentialConfigurations',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listCredentialConfigurations',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listCredentialConfigurations',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const byId: [string, (id: string) => string, 'GET' | 'POST', number, unknown][] = [
    ['getCredentialConfiguration', (id) => `${base}/${id}`, 'GET', 200, undefined],
    ['updateCredentialConfiguration', (id) => `${base}/${id}/update`, 'POST', 200, definition],
    ['deleteCredentialConfiguration', (id) => `${base}/${id}/delete`, 'POST', 204, undefined],
  ];
  for (const [operationId, path, method, success, body] of byId) {
    const call = async (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, body, ...request });
    table.push(
      [operationId, success, 'the configuration is there', async () => call(await created())],
      [
        operationId,
        400,
        'the tenant header is missing',
        async () => send(path(await created()), { method, body }),
      ],
      [operationId, 401, 'no token is sent', async () => call(await created(), anonymous)],
      [
        operationId,
        403,
        'an agent-user names another tenant',
        async () => call(await created(), forbidden),
      ],
      [operationId, 404, 'there is no such configuration', () => call('Nothing_here')],
    );
  }
  const update = `${base}/Nothing_here/update`;
  table.push(
    [
      'updateCredentialConfiguration',
      413,
      'the body is too large',
      async () =>
        send(`${base}/${await created()}/update`, { method: 'POST', ...owner, body: big }),
    ],
    ['updateCredentialConfiguration', 415, 'the body is not JSON', () => notJson(update)],
  );
  const metadata: [string, string][] = [
    ['getCredentialIssuerMetadata', '/.well-known/openid-credential-issuer/ctrl/oid4vci'],
    ['getAuthorizationServerMetadata', '/.well-known/oauth-authorization-server/ctrl/oid4vci'],
  ];
  for (const [operationId, prefix] of metadata) {
    table.push(
      [operationId, 200, 'the tenant exists', () => send(`${prefix}/acme`, anonymous)],
      [operationId, 400, 'the tenant id is malformed', () => send(`${prefix}/-x`, anonymous)],
      [operationId, 404, 'the tenant does not exist', () => send(`${prefix}/nobody`, anonymous)],
    );
  }
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
