import { selfSignedPresentation } from '../support/credentials-harness.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { credential, type Case, type ContractContext } from './context.js';

/**
 * The credentials feature: the issued records, status lists, presentations, then issue and verify (in
 * this order, listCredentials answers while the tenant has issued nothing yet).
 */
export function credentialCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, tenantHeader } = context;
  const issuePath = '/ctrl/api/v1.0/credentials/issue';
  const verifyPath = '/ctrl/api/v1.0/credentials/verify';
  const issueFor = (id: string, request: ApiRequest = {}) =>
    post(issuePath, { ...tenantHeader(id), body: { credential }, ...request });
  const issued = async () =>
    ((await issueFor('acme')).body as { verifiableCredential: Record<string, unknown> })
      .verifiableCredential;
  const verify = async (change: Record<string, unknown> = {}, request: ApiRequest = {}) =>
    post(verifyPath, {
      ...tenantHeader('acme'),
      body: { verifiableCredential: { ...(await issued()), ...change } },
      ...request,
    });
  const big = { credential: { ...credential, name: 'x'.repeat(110 * 1024) } };
  const issueCases: [number, string, () => Promise<ApiResponse>][] = [
    [201, 'a tenant signs a credential', () => issueFor('acme')],
    [
      400,
      'the credential has a proof',
      () => issueFor('acme', { body: { credential: { ...credential, proof: {} } } }),
    ],
    [401, 'no token is sent', () => issueFor('acme', anonymous)],
    [403, 'an agent-user names another tenant', () => issueFor('other', asDemo)],
    [404, 'an admin names an unknown tenant', () => issueFor('nobody')],
    [413, 'the body is too large', () => issueFor('acme', { body: big })],
    [
      415,
      'the body is not JSON',
      () =>
        issueFor('acme', {
          body: 'x',
          headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
        }),
    ],
  ];
  const verifyCases: [number, string, () => Promise<ApiResponse>][] = [
    [200, 'an issued credential is sent back', () => verify()],
    [422, 'the credential was changed after signing', () => verify({ name: 'Changed' })],
    [400, 'the credential has no subject', () => verify({ credentialSubject: 'x' })],
    [401, 'no token is sent', () => verify({}, anonymous)],
    [
      403,
      'an agent-user names another tenant',
      () => verify({}, { ...asDemo, ...tenantHeader('other') }),
    ],
    [404, 'an admin names an unknown tenant', () => verify({}, tenantHeader('nobody'))],
    [
      413,
      'the body is too large',
      () =>
        post(verifyPath, {
          ...tenantHeader('acme'),
          body: { verifiableCredential: big.credential },
        }),
    ],
    [
      415,
      'the body is not JSON',
      () =>
        post(verifyPath, {
          body: 'x',
          headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
        }),
    ],
  ];
  const presentationsPath = '/ctrl/api/v1.0/presentations/verify';
  const present = async (request: ApiRequest = {}) =>
    post(presentationsPath, {
      ...tenantHeader('acme'),
      body: { verifiablePresentation: await selfSignedPresentation([await issued()]) },
      ...request,
    });
  const presentationCases: [number, string, () => Promise<ApiResponse>][] = [
    [200, 'a holder presents an issued credential', () => present()],
    [
      422,
      'the presentation was changed after signing',
      async () =>
        post(presentationsPath, {
          ...tenantHeader('acme'),
          body: {
            verifiablePresentation: {
              ...(await selfSignedPresentation([await issued()])),
              id: 'urn:uuid:changed',
            },
          },
        }),
    ],
    [
      400,
      'it is not a presentation',
      () => present({ body: { verifiablePresentation: { type: 'x' } } }),
    ],
    [401, 'no token is sent', () => present(anonymous)],
    [
      403,
      'an agent-user names another tenant',
      () => present({ ...asDemo, ...tenantHeader('other') }),
    ],
    [404, 'an admin names an unknown tenant', () => present(tenantHeader('nobody'))],
    [
      413,
      'the body is too large',
      () =>
        post(presentationsPath, {
          ...tenantHeader('acme'),
          body: { verifiablePresentation: big.credential },
        }),
    ],
    [
      415,
      'the body is not JSON',
      () =>
        post(presentationsPath, {
          body: 'x',
          headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
        }),
    ],
  ];
  const statusPath = '/ctrl/api/v1.0/credentials/status';
  const revocation = { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' };
  const changeStatus = async (request: ApiRequest = {}) =>
    post(statusPath, {
      ...tenantHeader('acme'),
      body: { credentialId: (await issued()).id, credentialStatus: revocation },
      ...request,
    });
  const listUrl = async () =>
    new URL(
      ((await issued()).credentialStatus as { statusListCredential: string }).statusListCredential,
    ).pathname;
  const statusCases: [string, number, string, () => Promise<ApiResponse>][] = [
    ['updateCredentialStatus', 204, 'a credential is revoked', () => changeStatus()],
    [
      'updateCredentialStatus',
      400,
      'a revocation would be undone',
      async () =>
        post(statusPath, {
          ...tenantHeader('acme'),
          body: {
            credentialId: (await issued()).id,
            credentialStatus: revocation,
            status: false,
          },
        }),
    ],
    ['updateCredentialStatus', 401, 'no token is sent', () => changeStatus(anonymous)],
    [
      'updateCredentialStatus',
      403,
      'an agent-user names another tenant',
      () => changeStatus({ ...asDemo, ...tenantHeader('other') }),
    ],
    [
      'updateCredentialStatus',
      404,
      'the tenant issued no such credential',
      () =>
        post(statusPath, {
          ...tenantHeader('acme'),
          body: { credentialId: 'urn:uuid:nothing', credentialStatus: revocation },
        }),
    ],
    [
      'updateCredentialStatus',
      413,
      'the body is too large',
      () =>
        post(statusPath, {
          ...tenantHeader('acme'),
          body: { credentialId: 'x'.repeat(110 * 1024), credentialStatus: revocation },
        }),
    ],
    [
      'updateCredentialStatus',
      415,
      'the body is not JSON',
      () =>
        post(statusPath, {
          body: 'x',
          headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
        }),
    ],
    ['getStatusList', 200, 'anyone reads a list', async () => send(await listUrl(), anonymous)],
    [
      'getStatusList',
      304,
      'the list did not change',
      async () => {
        const path = await listUrl();
        const etag = (await send(path, anonymous)).headers.get('etag')!;
        return send(path, { ...anonymous, headers: { 'if-none-match': etag } });
      },
    ],
    [
      'getStatusList',
      400,
      'the tenant id is malformed',
      () => send('/ctrl/status-lists/-bad/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10', anonymous),
    ],
    [
      'getStatusList',
      404,
      'there is no such list',
      () => send('/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10', anonymous),
    ],
    [
      'publishStatusList',
      204,
      'the tenant publishes its list',
      async () => post(`${await listUrl()}/publish`),
    ],
    [
      'publishStatusList',
      400,
      'the tenant id is malformed',
      () => post('/ctrl/status-lists/-bad/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10/publish'),
    ],
    [
      'publishStatusList',
      401,
      'no token is sent',
      async () => post(`${await listUrl()}/publish`, anonymous),
    ],
    [
      'publishStatusList',
      403,
      "an agent-user publishes another tenant's list",
      async () => post(`${await listUrl()}/publish`, asDemo),
    ],
    [
      'publishStatusList',
      404,
      'there is no such list',
      () => post('/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10/publish'),
    ],
  ];
  const unknownList = '/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';
  const tokenCases: [string, number, string, () => Promise<ApiResponse>][] = [
    [
      'getStatusListToken',
      200,
      'anyone reads a revocation list as a Status List Token',
      async () => send(`${await listUrl()}/token`, anonymous),
    ],
    [
      'getStatusListToken',
      304,
      'the token did not change',
      async () => {
        const path = `${await listUrl()}/token`;
        const etag = (await send(path, anonymous)).headers.get('etag')!;
        return send(path, { ...anonymous, headers: { 'if-none-match': etag } });
      },
    ],
    [
      'getStatusListToken',
      400,
      'the tenant id is malformed',
      () => send('/ctrl/status-lists/-bad/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10/token', anonymous),
    ],
    [
      'getStatusListToken',
      404,
      'there is no such list',
      () => send(`${unknownList}/token`, anonymous),
    ],
    [
      'getJwtVcIssuerMetadata',
      200,
      "anyone reads a tenant's JWT VC Issuer Metadata",
      () => send('/.well-known/jwt-vc-issuer/ctrl/oid4vci/acme', anonymous),
    ],
    [
      'getJwtVcIssuerMetadata',
      400,
      'the tenant id is malformed',
      () => send('/.well-known/jwt-vc-issuer/ctrl/oid4vci/-bad', anonymous),
    ],
    [
      'getJwtVcIssuerMetadata',
      404,
      'there is no such tenant',
      () => send('/.well-known/jwt-vc-issuer/ctrl/oid4vci/nobody', anonymous),
    ],
  ];
  const recordsPath = '/ctrl/api/v1.0/credentials';
  const recordCases: [string, number, string, () => Promise<ApiResponse>][] = [
    [
      'listCredentials',
      200,
      'a tenant lists what it issued',
      () => send(recordsPath, tenantHeader('acme')),
    ],
    [
      'listCredentials',
      400,
      'the state filter is unknown',
      () => send(recordsPath, { ...tenantHeader('acme'), query: { status: 'lost' } }),
    ],
    [
      'listCredentials',
      401,
      'no token is sent',
      () => send(recordsPath, { ...anonymous, ...tenantHeader('acme') }),
    ],
    [
      'listCredentials',
      403,
      'an agent-user names another tenant',
      () => send(recordsPath, { ...asDemo, ...tenantHeader('other') }),
    ],
    [
      'listCredentials',
      404,
      'an admin names an unknown tenant',
      () => send(recordsPath, tenantHeader('nobody')),
    ],
    [
      'getCredential',
      200,
      'a tenant reads a credential it issued',
      async () =>
        send(
          `${recordsPath}/${encodeURIComponent((await issued()).id as string)}`,
          tenantHeader('acme'),
        ),
    ],
    ['getCredential', 400, 'the tenant header is missing', () => send(`${recordsPath}/urn:x:1`)],
    [
      'getCredential',
      401,
      'no token is sent',
      () => send(`${recordsPath}/urn:x:1`, { ...anonymous, ...tenantHeader('acme') }),
    ],
    [
      'getCredential',
      403,
      'an agent-user names another tenant',
      () => send(`${recordsPath}/urn:x:1`, { ...asDemo, ...tenantHeader('other') }),
    ],
    [
      'getCredential',
      404,
      'the tenant issued no such credential',
      () => send(`${recordsPath}/urn:x:1`, tenantHeader('acme')),
    ],
  ];
  return [
    ...recordCases.map(([operationId, status, when, send]) => ({
      operationId,
      status,
      when,
      send,
    })),
    ...statusCases.map(([operationId, status, when, send]) => ({
      operationId,
      status,
      when,
      send,
    })),
    ...tokenCases.map(([operationId, status, when, send]) => ({
      operationId,
      status,
      when,
      send,
    })),
    ...presentationCases.map(([status, when, send]) => ({
      operationId: 'verifyPresentation',
      status,
      when,
      send,
    })),
    ...issueCases.map(([status, when, send]) => ({
      operationId: 'issueCredential',
      status,
      when,
      send,
    })),
    ...verifyCases.map(([status, when, send]) => ({
      operationId: 'verifyCredential',
      status,
      when,
      send,
    })),
  ];
}
