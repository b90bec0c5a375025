import { startForgingProvider } from '../support/login-providers.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's login provider: each route on its success and error paths. */
export function loginProviderCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, tenantHeader, bigBody } = context;
  const base = '/ctrl/api/v1.0/oid4vci/login-provider';
  const owner = tenantHeader('acme');
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  // Nothing listens on port 9 of loopback: the discovery fetch fails at once.
  const unreachable = { issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's' };
  const set = (request: ApiRequest = {}) => post(base, { ...owner, body: unreachable, ...request });
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    [
      'setLoginProvider',
      200,
      'the issuer’s discovery document is usable',
      async () => {
        const provider = await startForgingProvider();
        try {
          return await set({ body: { ...unreachable, issuer: provider.issuer } });
        } finally {
          await provider.close();
        }
      },
    ],
    [
      'setLoginProvider',
      400,
      'the issuer is no URL',
      () => set({ body: { ...unreachable, issuer: 'x' } }),
    ],
    ['setLoginProvider', 401, 'no token is sent', () => set(anonymous)],
    ['setLoginProvider', 403, 'an agent-user names another tenant', () => set(forbidden)],
    ['setLoginProvider', 404, 'the tenant does not exist', () => set(tenantHeader('nobody'))],
    ['setLoginProvider', 413, 'the body is too large', () => set({ body: bigBody() })],
    [
      'setLoginProvider',
      415,
      'the body is not JSON',
      () => post(base, { body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
    ['setLoginProvider', 422, 'the discovery document cannot be fetched', () => set()],
    ['getLoginProvider', 200, 'the provider is read', () => send(base, owner)],
    ['getLoginProvider', 400, 'the tenant header is missing', () => send(base)],
    ['getLoginProvider', 401, 'no token is sent', () => send(base, { ...anonymous, ...owner })],
    ['getLoginProvider', 403, 'an agent-user names another tenant', () => send(base, forbidden)],
    [
      'getLoginProvider',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const remove = (request: ApiRequest = {}) => post(`${base}/delete`, { ...owner, ...request });
  table.push(
    ['deleteLoginProvider', 204, 'the tenant goes back to the default', () => remove()],
    ['deleteLoginProvider', 400, 'the tenant header is missing', () => post(`${base}/delete`)],
    ['deleteLoginProvider', 401, 'no token is sent', () => remove(anonymous)],
    ['deleteLoginProvider', 403, 'an agent-user names another tenant', () => remove(forbidden)],
    ['deleteLoginProvider', 404, 'the tenant does not exist', () => remove(tenantHeader('nobody'))],
  );
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
