import 'reflect-metadata';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { type JWTHeaderParameters } from 'jose';
import { createHash, X509Certificate } from 'node:crypto';
import { type Actor } from '../src/auth/caller.js';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey } from './support/oid4vci-wallet.js';
import { answerRequest, presentWithKeyBinding, resolveRequest } from './support/oid4vp-holder.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

const requests = '/ctrl/api/v1.0/oid4vp/requests';
const badgeQuery = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [sdJwtBadge.vct] },
      claims: [{ path: ['given_name'] }],
    },
  ],
};
const frame = { given_name: true };
const sha256 = (der: Buffer) => createHash('sha256').update(der).digest('base64url');

/**
 * X.509 client identifiers (OpenID4VP 1.0 §5.9.3, HAIP 1.0 §5) end to end: the requests API opens
 * `x509_hash` and `x509_san_dns` requests, OWF's wallet library (@openid4vc/openid4vp) verifies the
 * request object through its `x5c` chain up to the development authority's root (node's X.509, not the
 * service's code) and answers with an SD-JWT VC of the tenant's own issuer, over real HTTP and
 * PostgreSQL.
 */
describe('OpenID4VP, X.509 client identifiers', () => {
  let service: TestService;
  let root: Buffer;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    for (const id of ['acme', 'other', 'nodns']) {
      await service.client().createTenant({ id, label: id });
    }
    await service.client().createCredentialConfiguration('acme', sdJwtBadge);
    root = (await service.app.get(CertificateAuthorityService).current())!.root!;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const create = (body: Json, tenantId = 'acme') =>
    service.request<Json>(requests, {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: { dcqlQuery: badgeQuery, ...body },
    });

  /** A request opened through the API, and what a wallet trusting the root resolves from its link. */
  async function open(body: Json = {}, tenantId = 'acme') {
    const created = await create(body, tenantId);
    expect(created.status).toBe(201);
    const link = created.body.authorizationRequestUri as string;
    const resolved = await resolveRequest(link, [root]);
    return {
      id: created.body.id as string,
      clientId: created.body.clientId as string,
      link,
      resolved,
    };
  }

  const read = async (id: string, tenantId = 'acme') =>
    service.request<Json>(`${requests}/${id}`, { headers: { 'x-tenant-id': tenantId } });

  /** The request object's header, as the wallet fetched it. */
  const headerOf = (resolved: ResolvedOpenid4vpAuthorizationRequest) =>
    resolved.jar!.jwt.header as JWTHeaderParameters;

  async function issue() {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    return { credential: received.credentials[0] as string, key };
  }

  it('defaults to x509_hash: the SHA-256 of the leaf the request object carries in x5c, without the root', async () => {
    const { id, clientId, link, resolved } = await open();
    const header = headerOf(resolved);
    expect(header).toEqual({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: [expect.any(String)] });
    const leaf = Buffer.from(header.x5c![0], 'base64');
    expect(leaf.equals(root)).toBe(false);
    expect(new X509Certificate(leaf).checkIssued(new X509Certificate(root))).toBe(true);
    expect(new X509Certificate(leaf).subject).toBe('CN=acme');
    expect(clientId).toBe(`x509_hash:${sha256(leaf)}`);
    expect(new URL(link).searchParams.get('client_id')).toBe(clientId);
    expect(resolved.client).toMatchObject({ prefix: 'x509_hash', identifier: sha256(leaf) });
    expect(resolved.authorizationRequestPayload.client_id).toBe(clientId);
    expect((await read(id)).body).toMatchObject({ clientId, status: 'pending' });
  });

  it.each([
    ['x509_hash', 'direct_post'],
    ['x509_hash', 'direct_post.jwt'],
    ['x509_san_dns', 'direct_post'],
    ['x509_san_dns', 'direct_post.jwt'],
  ])('verifies a %s request answered by %s', async (clientIdPrefix, responseMode) => {
    const { credential, key } = await issue();
    const { id, clientId, resolved } = await open({ clientIdPrefix, responseMode });
    if (clientIdPrefix === 'x509_san_dns') expect(clientId).toBe('x509_san_dns:localhost');
    expect(resolved.client.prefix).toBe(clientIdPrefix);
    expect(resolved.jar?.signer.method).toBe('x5c');
    const payload = resolved.authorizationRequestPayload;
    const presentation = await presentWithKeyBinding(credential, frame, key, {
      nonce: payload.nonce,
      aud: payload.client_id!,
    });
    const answered = await answerRequest(resolved, { badge: [presentation] });
    expect(answered.status).toBe(200);
    expect((await read(id)).body).toMatchObject({
      status: 'verified',
      clientId,
      presented: { badge: [{ claims: { given_name: 'Erika' } }] },
    });
  });

  it('refuses a key binding whose aud is the client id without its prefix, then takes the full one', async () => {
    const { credential, key } = await issue();
    const { id, clientId, resolved } = await open();
    const nonce = resolved.authorizationRequestPayload.nonce;
    const bare = clientId.slice('x509_hash:'.length);
    const wrong = await presentWithKeyBinding(credential, frame, key, { nonce, aud: bare });
    const refused = await answerRequest(resolved, { badge: [wrong] });
    expect(refused.status).toBe(400);
    expect((await read(id)).body).toMatchObject({ status: 'pending', refusedAnswers: 1 });
    const right = await presentWithKeyBinding(credential, frame, key, { nonce, aud: clientId });
    expect((await answerRequest(resolved, { badge: [right] })).status).toBe(200);
    expect((await read(id)).body).toMatchObject({ status: 'verified' });
  });

  it('is not resolved by a wallet that does not trust the root', async () => {
    const created = await create({ clientIdPrefix: 'x509_hash' });
    await expect(resolveRequest(created.body.authorizationRequestUri as string)).rejects.toThrow();
    expect((await read(created.body.id as string)).body).toMatchObject({ status: 'pending' });
  });

  it('keeps each tenant’s own certificate and requests', async () => {
    const acme = await open({ clientIdPrefix: 'x509_hash' });
    const other = await open({ clientIdPrefix: 'x509_hash' }, 'other');
    expect(other.clientId).not.toBe(acme.clientId);
    const otherLeaf = new X509Certificate(Buffer.from(headerOf(other.resolved).x5c![0], 'base64'));
    expect(otherLeaf.subject).toBe('CN=other');
    expectProblem(
      await read(other.id, 'acme'),
      404,
      'PRESENTATION_REQUEST_NOT_FOUND',
      `${requests}/${other.id}`,
    );
  });

  it('keeps the DID’s client id when asked for decentralized_identifier', async () => {
    const did = (
      await service.request<{ id: string }>('/ctrl/api/v1.0/did', {
        headers: { 'x-tenant-id': 'acme' },
      })
    ).body.id;
    const created = await create({ clientIdPrefix: 'decentralized_identifier' });
    expect(created.status).toBe(201);
    expect(created.body.clientId).toBe(`decentralized_identifier:${did}`);
    const resolved = await resolveRequest(created.body.authorizationRequestUri as string);
    expect(headerOf(resolved)).toMatchObject({ alg: 'EdDSA', kid: expect.stringContaining(did) });
    expect(headerOf(resolved)).not.toHaveProperty('x5c');
  });

  it.each([['x509_san_uri'], ['redirect_uri'], ['X509_HASH'], [7], [['x509_hash']]])(
    'refuses the prefix %p with 400, storing nothing',
    async (clientIdPrefix) => {
      const before = await service.dataSource.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM oid4vp_request',
      );
      const refused = await create({ clientIdPrefix });
      expectFieldErrors(expectProblem(refused, 400, 'VALIDATION_FAILED', requests), [
        'clientIdPrefix',
      ]);
      expect(
        await service.dataSource.query('SELECT count(*)::int AS n FROM oid4vp_request'),
      ).toEqual(before);
    },
  );

  it.each([
    ['names no DNS name', [], /names no DNS name/],
    [
      'names another DNS name',
      ['verifier.example'],
      /verifier\.example, none of them the host 'localhost'/,
    ],
  ])(
    'refuses x509_san_dns with 409 when the leaf %s; x509_hash still works',
    async (_, dnsNames, detail) => {
      // The tenant's certificate replaced by one from the authority with these names.
      const key = await service.app.get(TenantKeys).es256SigningKey('nodns');
      const now = Date.now();
      const issued = await service.app.get(CertificateAuthorityService).issue({
        commonName: 'nodns',
        publicJwk: { kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y },
        dnsNames,
        uris: [`${service.publicBaseUrl}/ctrl/oid4vci/nodns`],
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + 86_400_000),
      });
      await service.app
        .get(CertificatesService)
        .activate('nodns', { source: 'authority', kid: key.kid, chain: [issued!.leaf] }, 'replace');

      const refused = await create({ clientIdPrefix: 'x509_san_dns' }, 'nodns');
      const problem = expectProblem(refused, 409, 'CLIENT_ID_PREFIX_UNAVAILABLE', requests);
      expect(problem.detail).toMatch(detail);
      const listed = await service.request<Json>(requests, { headers: { 'x-tenant-id': 'nodns' } });
      expect(listed.body).toMatchObject({ totalElements: 0 });

      const hashed = await open({ clientIdPrefix: 'x509_hash' }, 'nodns');
      expect(hashed.clientId).toBe(`x509_hash:${sha256(issued!.leaf)}`);
      await service.request(`${requests}/${hashed.id}/delete`, {
        method: 'POST',
        headers: { 'x-tenant-id': 'nodns' },
      });
    },
  );

  it('serves no request object once the certificate its client id names was replaced', async () => {
    const { link } = await open({ clientIdPrefix: 'x509_hash' }, 'other');
    await service.app.get(CertificatesService).issue('other', { subject: 'test' } as Actor);
    const requestUri = new URL(link).searchParams.get('request_uri')!;
    const fetched = await fetch(requestUri);
    expect(fetched.status).toBe(404);
    expect(await fetched.json()).toMatchObject({ error: 'invalid_request_uri' });
    // A request made now names the new certificate and is served.
    await open({ clientIdPrefix: 'x509_hash' }, 'other');
  });
});
