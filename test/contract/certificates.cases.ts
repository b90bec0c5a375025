import { Client } from 'pg';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { makeCa, pemChain, selfSignedLeaf, signLeaf } from '../support/x509-test-ca.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's X.509 certificates: each route on its success and error paths. */
export function certificateCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader, bigBody } = context;
  const base = '/ctrl/api/v1.0/certificates';
  const owner = tenantHeader('acme');
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const csr = (request: ApiRequest = {}) => post(`${base}/csr`, { ...owner, body: {}, ...request });
  const importChain = (request: ApiRequest = {}) =>
    post(`${base}/import`, { ...owner, body: { chain: 'x' }, ...request });
  const issue = (request: ApiRequest = {}) => post(`${base}/issue`, { ...owner, ...request });
  const authority = (request: ApiRequest = {}) =>
    send(`${base}/authority`, { ...owner, ...request });
  const notJson = (path: string) => () =>
    post(`${base}${path}`, {
      body: 'x',
      headers: { 'content-type': 'text/plain', ...owner.headers },
    });
  /** The service without a current authority while `run` runs: what a deployment without one answers. */
  const withoutAuthority = async (run: () => Promise<ApiResponse>) => {
    const db = new Client({ connectionString: context.service.databaseUrl });
    await db.connect();
    try {
      await db.query('UPDATE certificate_authority SET current = false');
      return await run();
    } finally {
      await db.query('UPDATE certificate_authority SET current = true');
      await db.end();
    }
  };
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['listCertificates', 200, 'the chains are listed', () => send(base, owner)],
    [
      'listCertificates',
      400,
      'the page size is 0',
      () => send(base, { ...owner, query: { size: '0' } }),
    ],
    [
      'listCertificates',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listCertificates',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listCertificates',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
    ['createCertificateSigningRequest', 201, 'a CSR is made', () => csr()],
    [
      'createCertificateSigningRequest',
      400,
      'a DNS name is not one',
      () => csr({ body: { dnsNames: ['not a name'] } }),
    ],
    ['createCertificateSigningRequest', 401, 'no token is sent', () => csr(anonymous)],
    [
      'createCertificateSigningRequest',
      403,
      'an agent-user names another tenant',
      () => csr(forbidden),
    ],
    [
      'createCertificateSigningRequest',
      404,
      'the tenant does not exist',
      () => csr(tenantHeader('nobody')),
    ],
    [
      'createCertificateSigningRequest',
      413,
      'the body is too large',
      () => csr({ body: bigBody() }),
    ],
    ['createCertificateSigningRequest', 415, 'the body is not JSON', notJson('/csr')],
    [
      'importCertificate',
      201,
      'a chain a CA signed for the tenant’s CSR is imported',
      async () => {
        const ca = await makeCa('Contract CA');
        const request = (await csr()).body as { csr: string };
        const chain = pemChain(await signLeaf(ca, request.csr), ca.certificate);
        return importChain({ body: { chain } });
      },
    ],
    ['importCertificate', 400, 'the chain is not PEM', () => importChain()],
    ['importCertificate', 401, 'no token is sent', () => importChain(anonymous)],
    ['importCertificate', 403, 'an agent-user names another tenant', () => importChain(forbidden)],
    [
      'importCertificate',
      404,
      'the tenant does not exist',
      () => importChain(tenantHeader('nobody')),
    ],
    ['importCertificate', 413, 'the body is too large', () => importChain({ body: bigBody() })],
    ['importCertificate', 415, 'the body is not JSON', notJson('/import')],
    [
      'importCertificate',
      422,
      'the leaf is self-signed',
      async () => {
        const leaf = await selfSignedLeaf(`${context.service.publicBaseUrl}/ctrl/oid4vci/acme`);
        return importChain({ body: { chain: pemChain(leaf) } });
      },
    ],
    ['issueCertificate', 201, 'the authority issues', () => issue()],
    ['issueCertificate', 400, 'the tenant header is missing', () => post(`${base}/issue`)],
    ['issueCertificate', 401, 'no token is sent', () => issue(anonymous)],
    ['issueCertificate', 413, 'the body is too large', () => issue({ body: bigBody() })],
    ['issueCertificate', 415, 'the body is not JSON', notJson('/issue')],
    ['issueCertificate', 403, 'an agent-user names another tenant', () => issue(forbidden)],
    ['issueCertificate', 404, 'the tenant does not exist', () => issue(tenantHeader('nobody'))],
    [
      'issueCertificate',
      409,
      'the service has no authority',
      () => withoutAuthority(() => issue()),
    ],
    ['getCertificateAuthority', 200, 'the root is shown', () => authority()],
    [
      'getCertificateAuthority',
      400,
      'the tenant header is missing',
      () => send(`${base}/authority`),
    ],
    ['getCertificateAuthority', 401, 'no token is sent', () => authority(anonymous)],
    [
      'getCertificateAuthority',
      403,
      'an agent-user names another tenant',
      () => authority(forbidden),
    ],
    [
      'getCertificateAuthority',
      404,
      'the tenant does not exist',
      () => authority(tenantHeader('nobody')),
    ],
    [
      'getCertificateAuthority',
      409,
      'the service has no authority',
      () => withoutAuthority(() => authority()),
    ],
    [
      'getCertificateAuthorityCrl',
      200,
      'the current authority’s CRL is fetched without a token',
      async () => {
        const db = new Client({ connectionString: context.service.databaseUrl });
        await db.connect();
        try {
          const { rows } = await db.query<{ id: string }>(
            'SELECT id FROM certificate_authority WHERE current',
          );
          return send(`/ctrl/certificate-authorities/${rows[0].id}/crl`, anonymous);
        } finally {
          await db.end();
        }
      },
    ],
    [
      'getCertificateAuthorityCrl',
      404,
      'no authority has the id',
      () =>
        send('/ctrl/certificate-authorities/00000000-0000-4000-8000-000000000000/crl', anonymous),
    ],
  ];
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
