import { Openid4vciClient, Openid4vciVersion, setGlobalConfig } from '@openid4vc/openid4vci';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';

type Json = Record<string, unknown>;
const issuerPath = (tenantId: string) =>
  `/.well-known/openid-credential-issuer/ctrl/oid4vci/${tenantId}`;
const serverPath = (tenantId: string) =>
  `/.well-known/oauth-authorization-server/ctrl/oid4vci/${tenantId}`;

/** A wallet that only discovers: the metadata resolution needs none of the signing callbacks. */
function wallet(): Openid4vciClient {
  const unused = () => {
    throw new Error('not used to resolve metadata');
  };
  return new Openid4vciClient({
    callbacks: {
      fetch,
      hash: unused,
      generateRandom: unused,
      signJwt: unused,
      clientAuthentication: unused,
    },
  });
}

/**
 * Each tenant's public OpenID4VCI discovery, read by OWF's wallet library (@openid4vc/openid4vci) over
 * real HTTP: the Credential Issuer Metadata and the authorization server's (docs/oid4vci.md).
 */
describe('OpenID4VCI issuer metadata', () => {
  let service: TestService;
  let issuer: string;

  beforeAll(async () => {
    // The test service's public origin is http://localhost:port; wallets otherwise insist on https.
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    const client = service.client();
    await client.createTenant({ id: 'acme', label: 'ACME Corp' });
    await client.createTenant({ id: 'empty', label: 'Empty' });
    await client.createCredentialConfiguration('acme', sdJwtBadge);
    await client.createCredentialConfiguration('acme', {
      ...ldpBadge,
      cryptosuite: 'eddsa-jcs-2022',
    });
    // The identifier is PUBLIC_BASE_URL's (localhost), as a credential offer would carry it.
    issuer = `${new URL(service.url).origin.replace('127.0.0.1', 'localhost')}/ctrl/oid4vci/acme`;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  it('is accepted by the wallet library, which sees every configuration and the token endpoint', async () => {
    const resolved = await wallet().resolveIssuerMetadata(issuer);

    // 1.0 final, not a draft it reads for compatibility.
    expect(resolved.originalDraftVersion).toBe(Openid4vciVersion.V1);
    expect(resolved.credentialIssuer).toMatchObject({
      credential_issuer: issuer,
      credential_endpoint: `${issuer}/credential`,
      nonce_endpoint: `${issuer}/nonce`,
      notification_endpoint: `${issuer}/notification`,
      batch_credential_issuance: { batch_size: 2 },
      display: [{ name: 'ACME Corp' }],
    });
    expect(Object.keys(resolved.knownCredentialConfigurations).sort()).toEqual([
      ldpBadge.id,
      sdJwtBadge.id,
    ]);
    expect(resolved.knownCredentialConfigurations[sdJwtBadge.id]).toEqual({
      format: 'dc+sd-jwt',
      scope: sdJwtBadge.id,
      vct: sdJwtBadge.vct,
      cryptographic_binding_methods_supported: ['jwk'],
      credential_signing_alg_values_supported: ['ES256'],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256', 'EdDSA'] } },
      credential_metadata: { display: sdJwtBadge.display, claims: sdJwtBadge.claims },
    });
    expect(resolved.knownCredentialConfigurations[ldpBadge.id]).toMatchObject({
      format: 'ldp_vc',
      scope: ldpBadge.id,
      credential_definition: ldpBadge.credentialDefinition,
      cryptographic_binding_methods_supported: ['jwk', 'did:key', 'did:jwk'],
      credential_signing_alg_values_supported: ['eddsa-jcs-2022'],
      credential_metadata: { claims: ldpBadge.claims },
    });
    expect(resolved.authorizationServers).toEqual([
      expect.objectContaining({
        issuer,
        token_endpoint: `${issuer}/token`,
        'pre-authorized_grant_anonymous_access_supported': true,
        grant_types_supported: [
          'authorization_code',
          'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        ],
        pushed_authorization_request_endpoint: `${issuer}/par`,
        require_pushed_authorization_requests: true,
        dpop_signing_alg_values_supported: ['ES256'],
      }),
    ]);
  });

  it('answers JSON, briefly cacheable, without a token; a tenant without configurations lists none', async () => {
    const answer = await service.request<Json>(issuerPath('empty'), { as: 'anonymous' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=60');
    expect(answer.body.credential_configurations_supported).toEqual({});
    const server = await service.request<Json>(serverPath('empty'), { as: 'anonymous' });
    expect(server.status).toBe(200);
    expect(server.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
  });

  it('follows the configurations: a deleted one leaves the metadata at once', async () => {
    await service.client().createCredentialConfiguration('empty', { ...ldpBadge, id: 'Short' });
    const listed = await service.request<Json>(issuerPath('empty'), { as: 'anonymous' });
    expect(Object.keys(listed.body.credential_configurations_supported as Json)).toEqual(['Short']);
    await service.client().deleteCredentialConfiguration('empty', 'Short');
    const after = await service.request<Json>(issuerPath('empty'), { as: 'anonymous' });
    expect(after.body.credential_configurations_supported).toEqual({});
  });

  it.each([issuerPath, serverPath])(
    'answers an unknown tenant with a 404 problem (%#)',
    async (path) => {
      const response = await service.request(path('nobody'), { as: 'anonymous' });
      expectProblem(response, 404, 'TENANT_NOT_FOUND', path('nobody'));
    },
  );

  it('refuses a tenant id that could not be one with 400', async () => {
    const path = issuerPath('-bad');
    expectProblem(await service.request(path, { as: 'anonymous' }), 400, 'VALIDATION_FAILED', path);
  });

  it('lets the wallet library fail cleanly on an unknown tenant', async () => {
    await expect(
      wallet().resolveIssuerMetadata(`${service.url}/ctrl/oid4vci/nobody`),
    ).rejects.toThrow();
  });
});
