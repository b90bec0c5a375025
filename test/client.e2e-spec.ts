import { setGlobalConfig } from '@openid4vc/openid4vci';
import {
  AgentApiError,
  AgentClient,
  TokenRequestError,
  tokenUrlOf,
  type CreatedOffer,
  type CreatedPresentationRequest,
  type IssuedCredential,
  type NewOffer,
  type NewPresentationRequest,
  type Offer,
  type PresentationRequest,
  type Tenant,
} from '../packages/client/src/index.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { openid4vciWallet, walletKey } from './support/oid4vci-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCa, pemChain, signLeaf, x509 } from './support/x509-test-ca.js';

/**
 * The typed client (`@agent-service/client`, from its sources) against the real service: every operation, errors
 * as AgentApiError with their problem details, both kinds of credentials, and hours of token expiry on
 * the issuer's clock without the caller handling a token.
 */

const second = 1000;

/** A fetch that records the grant type of every token request it passes on. */
function recordingFetch(grants: string[], before?: (request: Request) => void) {
  return async (request: Request): Promise<Response> => {
    before?.(request);
    if (request.url.endsWith('/protocol/openid-connect/token')) {
      grants.push(new URLSearchParams(await request.clone().text()).get('grant_type') ?? '?');
    }
    return fetch(request);
  };
}

describe(AgentClient.name, () => {
  describe('on the real service', () => {
    let service: TestService;
    let admin: AgentClient;

    beforeAll(async () => {
      service = await startTestService();
      admin = service.client('admin');
      await admin.createTenant({ id: 'demo', label: 'Demo' });
    });

    afterAll(async () => {
      await service.close();
    });

    it('creates, reads, lists, updates and deletes a tenant, with typed answers', async () => {
      const created: Tenant = await admin.createTenant({
        id: 'acme',
        label: 'ACME Corp',
        imageUrl: 'https://acme.example/logo.png',
      });
      expect(created).toMatchObject({
        id: 'acme',
        label: 'ACME Corp',
        imageUrl: 'https://acme.example/logo.png',
      });
      expect(created.did).toMatch(/^did:key:z6Mk/);
      expect(await admin.getTenant('acme')).toEqual(created);

      const page = await admin.listTenants({ q: 'acm', sort: 'id,asc', size: 5 });
      expect(page).toMatchObject({ number: 0, size: 5, totalElements: 1, totalPages: 1 });
      expect(page.content.map((tenant) => tenant.id)).toEqual(['acme']);

      const updated = await admin.updateTenant('acme', {
        label: 'ACME Corporation',
        imageUrl: null,
      });
      expect(updated).toMatchObject({ id: 'acme', label: 'ACME Corporation', imageUrl: null });

      await expect(admin.deleteTenant('acme')).resolves.toBeUndefined();
      await expect(admin.getTenant('acme')).rejects.toMatchObject({
        status: 404,
        code: 'TENANT_NOT_FOUND',
      });
    });

    it("reads a tenant's DID and its DID document", async () => {
      const tenant = await admin.createTenant({ id: 'globex', label: 'Globex' });
      const did = await admin.getDid('globex');
      expect(did).toMatchObject({
        id: tenant.did,
        public: true,
        method: 'key',
        keyType: 'ed25519',
      });
      const document = await admin.getDidDocument('globex');
      expect(document.id).toBe(tenant.did);
      expect(document['@context']).toContain('https://www.w3.org/ns/did/v1');
      expect(document.verificationMethod[0].publicKeyMultibase).toBe(did.publicKeyMultibase);
      const multikey = await admin.getDidDocument('globex', { format: 'multikey' });
      expect(multikey.verificationMethod.map((method) => method.type)).toEqual(['Multikey']);
      expect(multikey.keyAgreement).toBeUndefined();
    });

    it('throws an AgentApiError carrying the problem details of an error answer', async () => {
      const error = await admin
        .createTenant({ id: 'demo', label: 'Again' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AgentApiError);
      const apiError = error as AgentApiError;
      expect(apiError.status).toBe(409);
      expect(apiError.code).toBe('TENANT_ALREADY_EXISTS');
      expect(apiError.problem).toMatchObject({
        status: 409,
        title: 'Tenant already exists',
        instance: '/ctrl/api/v1.0/tenants/create',
      });
      expect(apiError.message).toContain('TENANT_ALREADY_EXISTS');

      await expect(admin.listTenants({ size: 1000 })).rejects.toMatchObject({
        status: 400,
        code: 'VALIDATION_FAILED',
        problem: { errors: [{ field: 'size', message: 'must be 1-100' }] },
      });
      await expect(admin.getDid('nobody')).rejects.toMatchObject({
        status: 404,
        code: 'TENANT_NOT_FOUND',
      });
    });

    it("manages a tenant's trusted issuers, and verifies with checks and trustedIssuers", async () => {
      const issuer = await admin.createTenant({ id: 'university', label: 'University' });
      const entry = await admin.createTrustedIssuer(
        'demo',
        { issuer: issuer.did, description: 'University' },
        { idempotencyKey: 'trusted-university' },
      );
      expect(entry).toMatchObject({ tenantId: 'demo', issuer: issuer.did });
      expect(
        await admin.createTrustedIssuer(
          'demo',
          { issuer: issuer.did, description: 'University' },
          { idempotencyKey: 'trusted-university' },
        ),
      ).toEqual(entry);
      expect(await admin.getTrustedIssuer('demo', entry.id)).toEqual(entry);
      expect((await admin.listTrustedIssuers('demo', { sort: 'issuer' })).content).toEqual([entry]);

      const credential = await admin.issueCredential('university', {
        credential: {
          '@context': [
            'https://www.w3.org/ns/credentials/v2',
            'https://www.w3.org/ns/credentials/examples/v2',
          ],
          type: ['VerifiableCredential', 'AlumniCredential'],
          credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
        },
      });
      const verified = await admin.verifyCredential('demo', credential, { checks: ['proof'] });
      expect(verified).toMatchObject({ verified: true, issuer: issuer.did });
      await expect(
        admin.verifyCredential('demo', credential, { trustedIssuers: ['did:example:other'] }),
      ).rejects.toMatchObject({ status: 422, code: 'CREDENTIAL_NOT_VERIFIED' });

      await admin.deleteTrustedIssuer('demo', entry.id);
      await expect(admin.getTrustedIssuer('demo', entry.id)).rejects.toMatchObject({
        status: 404,
        code: 'TRUSTED_ISSUER_NOT_FOUND',
      });
    });

    it("certifies the tenant's key: a CSR, a chain imported with a key, the authority's chain", async () => {
      const ca = await makeCa('Client test CA');
      const csr = await admin.createCertificateSigningRequest('demo');
      expect(csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
      const chain = pemChain(await signLeaf(ca, csr), ca.certificate);
      const imported = await admin.importCertificate('demo', chain, { idempotencyKey: 'chain-1' });
      expect(imported).toMatchObject({ status: 'active', source: 'imported', subject: 'CN=demo' });
      // The same key and chain again: the first answer, not a second row.
      expect(await admin.importCertificate('demo', chain, { idempotencyKey: 'chain-1' })).toEqual(
        imported,
      );
      expect((await admin.listCertificates('demo')).content).toEqual([imported]);
      await expect(admin.importCertificate('demo', 'not pem')).rejects.toMatchObject({
        status: 400,
        code: 'CERTIFICATE_CHAIN_MALFORMED',
      });
      const issued = await admin.issueCertificate('demo');
      const { certificate } = await admin.getCertificateAuthority('demo');
      const root = new x509.X509Certificate(certificate);
      const leaf = new x509.X509Certificate(issued.x5c[0]);
      expect(await leaf.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
    });

    it('makes, reads, lists and withdraws a credential offer, with its QR codes', async () => {
      await admin.createTenant({ id: 'issuer-co', label: 'Issuer Co' });
      await admin.createTenant({ id: 'other-co', label: 'Other Co' });
      const configuration = await admin.createCredentialConfiguration('issuer-co', sdJwtBadge);
      expect(configuration).toMatchObject({ id: sdJwtBadge.id, format: 'dc+sd-jwt' });

      // `length` alone: the input mode, `expiresInSeconds` and `byValue` take the service's defaults.
      const request: NewOffer = {
        credentialConfigurationId: configuration.id,
        claims: { given_name: 'Erika' },
        txCode: { length: 8 },
      };
      const created: CreatedOffer = await admin.createOffer('issuer-co', request, {
        idempotencyKey: 'offer-erika',
      });
      expect(created).toMatchObject({
        status: 'offered',
        txCode: expect.stringMatching(/^\d{8}$/),
      });
      expect(created.credentialOfferUri).toMatch(
        /^openid-credential-offer:\/\/\?credential_offer_uri=/,
      );
      expect(created.credentialOffer).toMatchObject({
        credential_configuration_ids: [sdJwtBadge.id],
        grants: {
          'urn:ietf:params:oauth:grant-type:pre-authorized_code': {
            tx_code: { length: 8, input_mode: 'numeric' },
          },
        },
      });
      const minutes = (Date.parse(created.expiresAt) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(9);
      expect(minutes).toBeLessThanOrEqual(10);
      // The same key answers the same offer, its transaction code included.
      expect(
        await admin.createOffer('issuer-co', request, { idempotencyKey: 'offer-erika' }),
      ).toEqual(created);

      const offer: Offer = await admin.getOffer('issuer-co', created.id);
      expect(offer).toMatchObject({
        id: created.id,
        status: 'offered',
        credentialConfigurationId: sdJwtBadge.id,
        credentialIds: [],
        txCodeRequired: true,
        expiresAt: created.expiresAt,
      });
      expect(JSON.stringify(offer)).not.toContain(created.txCode);
      const page = await admin.listOffers('issuer-co', { sort: 'createdAt,desc', size: 5 });
      expect(page).toMatchObject({ number: 0, size: 5, totalElements: 1 });
      expect(page.content).toEqual([offer]);

      const svg: string = await admin.offerQrCode('issuer-co', created.id, 'svg');
      expect(svg.startsWith('<svg')).toBe(true);
      const png: Uint8Array = await admin.offerQrCode('issuer-co', created.id, 'png');
      expect(png).toBeInstanceOf(Uint8Array);
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(png.length).toBeGreaterThan(100);

      // Another tenant's offer is not found, whichever method asks.
      for (const call of [
        () => admin.getOffer('other-co', created.id),
        () => admin.withdrawOffer('other-co', created.id),
        () => admin.offerQrCode('other-co', created.id, 'svg'),
        () => admin.offerQrCode('other-co', created.id, 'png'),
      ]) {
        const error = await call().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(AgentApiError);
        expect(error).toMatchObject({ status: 404, code: 'OFFER_NOT_FOUND' });
      }
      expect((await admin.getOffer('issuer-co', created.id)).status).toBe('offered');

      const withdrawn = await admin.withdrawOffer('issuer-co', created.id);
      expect(withdrawn).toMatchObject({ id: created.id, status: 'withdrawn' });
      const again = await admin
        .withdrawOffer('issuer-co', created.id)
        .catch((caught: unknown) => caught);
      expect(again).toBeInstanceOf(AgentApiError);
      expect(again).toMatchObject({
        status: 409,
        code: 'OFFER_NOT_OPEN',
        problem: { instance: `/ctrl/api/v1.0/oid4vci/offers/${created.id}/withdraw` },
      });
      // A QR code of an offer no longer open is a problem too, not an image.
      await expect(admin.offerQrCode('issuer-co', created.id, 'png')).rejects.toMatchObject({
        status: 409,
        code: 'OFFER_NOT_OPEN',
      });
      await expect(
        admin.createOffer('issuer-co', { credentialConfigurationId: 'Unknown', claims: {} }),
      ).rejects.toMatchObject({ status: 404, code: 'CREDENTIAL_CONFIGURATION_NOT_FOUND' });
    });

    it('opens, reads, lists, draws and deletes presentation requests', async () => {
      await admin.createTenant({ id: 'verifier-co', label: 'Verifier Co' });
      // `dcqlQuery` alone: the response mode, the request_uri method and the time take the defaults.
      const request: NewPresentationRequest = {
        dcqlQuery: {
          credentials: [
            {
              id: 'badge',
              format: 'dc+sd-jwt',
              meta: { vct_values: [sdJwtBadge.vct] },
              claims: [{ path: ['given_name'] }],
            },
          ],
        },
      };
      const created: CreatedPresentationRequest = await admin.createPresentationRequest(
        'verifier-co',
        request,
        { idempotencyKey: 'vp-badge' },
      );
      expect(created).toMatchObject({ status: 'pending', responseMode: 'direct_post' });
      // A tenant with a certificate (the development authority's) is an x509_hash client by default.
      expect(created.authorizationRequestUri).toMatch(
        /^openid4vp:\/\/\?client_id=x509_hash%3A[A-Za-z0-9_-]{43}&/,
      );
      const byDid = await admin.createPresentationRequest('verifier-co', {
        ...request,
        clientIdPrefix: 'decentralized_identifier',
      });
      expect(byDid.clientId).toMatch(/^decentralized_identifier:did:key:/);
      await admin.deletePresentationRequest('verifier-co', byDid.id);
      expect(
        await admin.createPresentationRequest('verifier-co', request, {
          idempotencyKey: 'vp-badge',
        }),
      ).toEqual(created);

      const read: PresentationRequest = await admin.getPresentationRequest(
        'verifier-co',
        created.id,
      );
      expect(read).toMatchObject({
        id: created.id,
        status: 'pending',
        authorizationRequestUri: created.authorizationRequestUri,
        endedAt: null,
      });
      const page = await admin.listPresentationRequests('verifier-co', { size: 5 });
      expect(page).toMatchObject({ number: 0, size: 5, totalElements: 1 });
      expect(page.content).toEqual([read]);
      const svg: string = await admin.presentationRequestQrCode('verifier-co', created.id, 'svg');
      expect(svg.startsWith('<svg')).toBe(true);
      const png: Uint8Array = await admin.presentationRequestQrCode(
        'verifier-co',
        created.id,
        'png',
      );
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

      await expect(
        admin.createPresentationRequest('verifier-co', {
          dcqlQuery: {
            credentials: [{ id: 'j', format: 'jwt_vc_json', meta: { type_values: [['x']] } }],
          },
        }),
      ).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
      await expect(admin.getPresentationRequest('issuer-co', created.id)).rejects.toMatchObject({
        status: 404,
        code: 'PRESENTATION_REQUEST_NOT_FOUND',
      });
      await admin.deletePresentationRequest('verifier-co', created.id);
      await expect(
        admin.deletePresentationRequest('verifier-co', created.id),
      ).rejects.toMatchObject({ status: 404, code: 'PRESENTATION_REQUEST_NOT_FOUND' });
    });

    it("reads an issued credential's record with its format, offer and configuration", async () => {
      await admin.createTenant({ id: 'records-co', label: 'Records Co' });
      await admin.createCredentialConfiguration('records-co', sdJwtBadge);
      const created = await admin.createOffer('records-co', {
        credentialConfigurationId: sdJwtBadge.id,
        claims: { given_name: 'Erika' },
        byValue: true,
      });
      expect(created.txCode).toBeUndefined();

      // A wallet takes the offer (OWF's library, over HTTP to the service).
      setGlobalConfig({ allowInsecureUrls: true });
      try {
        const key = await walletKey('ES256');
        const wallet = openid4vciWallet([key]);
        const credentialOffer = await wallet.resolveCredentialOffer(created.credentialOfferUri);
        const issuerMetadata = await wallet.resolveIssuerMetadata(
          credentialOffer.credential_issuer,
        );
        const token = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
          credentialOffer,
          issuerMetadata,
        });
        const { c_nonce: nonce } = await wallet.requestNonce({ issuerMetadata });
        const { jwt } = await wallet.createCredentialRequestJwtProof({
          issuerMetadata,
          credentialConfigurationId: sdJwtBadge.id,
          signer: { method: 'jwk', publicJwk: key.publicJwk as never, alg: key.alg },
          nonce,
        });
        const answer = await wallet.retrieveCredentials({
          issuerMetadata,
          credentialConfigurationId: sdJwtBadge.id,
          proofs: { jwt: [jwt] },
          accessToken: token.accessTokenResponse.access_token,
        });
        expect(answer.response.status).toBe(200);
      } finally {
        setGlobalConfig({ allowInsecureUrls: false });
      }

      const issued = await admin.getOffer('records-co', created.id);
      expect(issued.status).toBe('issued');
      const [credentialId] = issued.credentialIds;
      const record: IssuedCredential = await admin.getCredential('records-co', credentialId);
      expect(record).toMatchObject({
        id: credentialId,
        format: 'dc+sd-jwt',
        offerId: created.id,
        configurationId: sdJwtBadge.id,
        cryptosuite: 'ES256',
      });
      const direct = await admin.issueCredential('records-co', {
        credential: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['VerifiableCredential'],
          credentialSubject: { id: 'did:example:abcdefgh' },
        },
      });
      const page = await admin.listCredentials('records-co');
      expect(
        page.content.map(({ id, format, offerId, configurationId }) => ({
          id,
          format,
          offerId,
          configurationId,
        })),
      ).toEqual([
        { id: direct.id, format: 'ldp_vc', offerId: null, configurationId: null },
        {
          id: credentialId,
          format: 'dc+sd-jwt',
          offerId: created.id,
          configurationId: sdJwtBadge.id,
        },
      ]);
    });

    it('acts as an agent-user within its tenants only', async () => {
      const demo = service.client('demo');
      expect((await demo.listTenants()).content.map((tenant) => tenant.id)).toEqual(['demo']);
      expect((await demo.getDid('demo')).id).toMatch(/^did:key:/);
      await expect(demo.getDid('globex')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
      await expect(demo.createTenant({ id: 'mine', label: 'Mine' })).rejects.toBeInstanceOf(
        AgentApiError,
      );
    });

    it('calls as a service with the client credentials of agent-service', async () => {
      const grants: string[] = [];
      const machine = new AgentClient({
        baseUrl: service.url,
        credentials: { clientId: 'agent-service', clientSecret: 'change-me' },
        fetch: recordingFetch(grants),
      });
      const created = await machine.createTenant({ id: 'machine-made', label: 'Machine made' });
      expect(created.id).toBe('machine-made');
      expect((await machine.getTenant('machine-made')).label).toBe('Machine made');
      expect(grants).toEqual(['client_credentials']);
    });

    it('reports refused credentials as a TokenRequestError, without calling the API', async () => {
      const requested: string[] = [];
      const wrong = service.client('admin', {
        credentials: { username: 'admin', password: 'no' },
        fetch: (request) => {
          requested.push(new URL(request.url).pathname);
          return fetch(request);
        },
      });
      const error = await wrong.listTenants().catch((caught: unknown) => caught);
      expect(requested).toEqual(['/auth/realms/agent-cloud/protocol/openid-connect/token']);
      expect(error).toBeInstanceOf(TokenRequestError);
      expect(error).toMatchObject({ status: 400, error: 'invalid_grant', grant: 'password' });
    });

    it('shares one token among concurrent calls', async () => {
      const grants: string[] = [];
      const client = service.client('admin', { fetch: recordingFetch(grants) });
      const pages = await Promise.all(Array.from({ length: 8 }, () => client.listTenants()));
      expect(pages.every((page) => page.totalElements >= 1)).toBe(true);
      expect(grants).toEqual(['password']);
    });

    it('builds the token URL of an origin', () => {
      expect(tokenUrlOf('https://agent.example/')).toBe(
        'https://agent.example/auth/realms/agent-cloud/protocol/openid-connect/token',
      );
    });
  });

  describe('through token expiry on the issuer clock', () => {
    let service: TestService;
    /** Added to the issuer's clock and the client's alike: the test moves time instead of waiting. */
    let offset = 0;
    const clock = () => Date.now() + offset;

    beforeAll(async () => {
      service = await startTestService({ clock });
      await service.client('admin').createTenant({ id: 'acme', label: 'ACME Corp' });
    });

    afterAll(async () => {
      await service.close();
    });

    beforeEach(() => {
      offset = 0;
    });

    it('reuses its token, refreshes it after 600 s, and logs in again after 1800 s', async () => {
      const grants: string[] = [];
      const client = service.client('admin', { now: clock, fetch: recordingFetch(grants) });

      expect((await client.getDid('acme')).id).toMatch(/^did:key:/);
      expect(grants).toEqual(['password']);

      offset += 300 * second;
      await client.getDid('acme');
      expect(grants).toEqual(['password']);

      // Past the access token's 600 s: the refresh grant renews it.
      offset += 301 * second;
      await client.getDid('acme');
      expect(grants).toEqual(['password', 'refresh_token']);

      // Past the refresh token's 1800 s as well: a new password grant.
      offset += 1801 * second;
      expect((await client.listTenants()).content.map((tenant) => tenant.id)).toEqual(['acme']);
      expect(grants).toEqual(['password', 'refresh_token', 'password']);
    });

    it('keeps working for twelve hours without the caller handling a token', async () => {
      const grants: { grant: string; at: number }[] = [];
      const client = service.client('admin', {
        now: clock,
        fetch: async (request) => {
          if (request.url.endsWith('/token')) {
            const form = new URLSearchParams(await request.clone().text());
            grants.push({ grant: form.get('grant_type') ?? '?', at: offset });
          }
          return fetch(request);
        },
      });
      let calls = 0;
      for (offset = 0; offset <= 12 * 3600 * second; offset += 7 * 60 * second) {
        expect((await client.getTenant('acme')).id).toBe('acme');
        calls += 1;
      }
      expect(calls).toBe(103);
      expect(grants[0]).toEqual({ grant: 'password', at: 0 });
      // Renewed by the refresh grant, never sooner than needed (600 s tokens, renewed 60 s early)...
      const gaps = grants.slice(1).map((entry, index) => entry.at - grants[index].at);
      expect(
        gaps.every((gap) => gap >= 540 * second && gap <= 600 * second + 7 * 60 * second),
      ).toBe(true);
      // ...and a new login once, at the first call after the realm's 10 h session maximum.
      const sessionMaxSeconds = 36000;
      const firstCallAfter = Math.ceil(sessionMaxSeconds / (7 * 60)) * 7 * 60 * second;
      expect(grants.filter((entry) => entry.grant === 'password').slice(1)).toEqual([
        { grant: 'password', at: firstCallAfter },
      ]);
    });

    it('renews once and retries once when the service refuses a token the client still trusts', async () => {
      const grants: string[] = [];
      const apiAnswers: number[] = [];
      // The first token is issued 700 s in the past, so the service (on real time) finds it expired while
      // the client, which counts from when it asked, still trusts it; then the issuer's clock is right.
      offset = -700 * second;
      const client = service.client('admin', {
        now: Date.now,
        fetch: async (request) => {
          const isToken = request.url.endsWith('/token');
          if (isToken) {
            grants.push(new URLSearchParams(await request.clone().text()).get('grant_type') ?? '?');
          }
          const response = await fetch(request);
          if (isToken) offset = 0;
          else apiAnswers.push(response.status);
          return response;
        },
      });
      expect((await client.getDidDocument('acme')).id).toMatch(/^did:key:/);
      expect(apiAnswers).toEqual([401, 200]);
      expect(grants).toEqual(['password', 'refresh_token']);
    });
  });
});
