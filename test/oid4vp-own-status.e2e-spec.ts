import { setGlobalConfig as setOauth2Config } from '@openid4vc/oauth2';
import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import { answerRequest, resolveRequest } from './support/oid4vp-holder.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import { presentTestSdJwtVc } from './support/sd-jwt-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

/**
 * An SD-JWT VC one tenant issued, presented over OpenID4VP to another tenant's verifier, its status
 * read from our own list (docs/credentials.md): on two instances of one database behind one public
 * URL, a revocation made through one is refused at the next answer on either. Neither instance may
 * fetch loopback URLs: the list is read from its row, never over HTTP. The wallet is OWF's libraries.
 */
describe('OpenID4VP: our own status list, across two instances', () => {
  let a: TestService;
  let b: TestService;
  let credential: string;
  let credentialId: string;
  let holder: WalletKey;
  const issuer = 'own-univ';
  const verifier = 'own-shop';

  beforeAll(async () => {
    setOauth2Config({ allowInsecureUrls: true });
    setOid4vciConfig({ allowInsecureUrls: true });
    a = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'false' } });
    // As a scaled deployment runs: one database, master key, token issuer and public URL (A's).
    const second = await startTestService({
      env: {
        DATABASE_URL: a.databaseUrl,
        AGENT_MASTER_KEY: a.masterKey,
        AUTH_ISSUER_URL: `${a.publicBaseUrl}/auth/realms/agent-cloud`,
        PUBLIC_BASE_URL: a.publicBaseUrl,
        STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'false',
      },
    });
    const token = await a.tokenFor('admin');
    b = { ...second, request: (path, request = {}) => second.request(path, { ...request, token }) };
    for (const id of [issuer, verifier]) await a.client().createTenant({ id, label: id });
    const configured = await a.request('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      method: 'POST',
      headers: { 'x-tenant-id': issuer },
      body: sdJwtBadge,
    });
    expect(configured.status).toBe(201);
    const offer = await a.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': issuer },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } },
    });
    expect(offer.status).toBe(201);
    holder = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [holder]);
    credential = received.credentials[0] as string;
    const read = await a.request<Json>(`/ctrl/api/v1.0/oid4vci/offers/${offer.body.id as string}`, {
      headers: { 'x-tenant-id': issuer },
    });
    [credentialId] = read.body.credentialIds as string[];
  });

  afterAll(async () => {
    setOauth2Config({ allowInsecureUrls: false });
    setOid4vciConfig({ allowInsecureUrls: false });
    await b?.close();
    await a?.close();
  });

  /**
   * The verifier tenant's request opened through `opener`, answered by the wallet at `answerer` (as a
   * load balancer would send it); the request as `opener` then reads it.
   */
  async function presentThrough(opener: TestService, answerer: TestService) {
    const created = await opener.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': verifier },
      body: {
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
        clientIdPrefix: 'decentralized_identifier',
      },
    });
    expect(created.status).toBe(201);
    const resolved = await resolveRequest(created.body.authorizationRequestUri as string);
    const payload = resolved.authorizationRequestPayload;
    const responseUri = payload.response_uri as string;
    expect(responseUri.startsWith(`${a.publicBaseUrl}/`)).toBe(true);
    payload.response_uri = `${answerer.url}${responseUri.slice(a.publicBaseUrl.length)}`;
    const presentation = await presentTestSdJwtVc(
      credential,
      holder,
      { nonce: payload.nonce, aud: payload.client_id! },
      { given_name: true },
    );
    const answered = await answerRequest(resolved, { badge: [presentation] });
    const read = await opener.request<Json>(
      `/ctrl/api/v1.0/oid4vp/requests/${created.body.id as string}`,
      { headers: { 'x-tenant-id': verifier } },
    );
    expect(read.status).toBe(200);
    return { status: answered.status, request: read.body };
  }

  it('verifies the credential on both instances, then refuses it on both once revoked through one', async () => {
    for (const [opener, answerer] of [
      [a, a],
      [a, b],
      [b, b],
    ]) {
      const { status, request } = await presentThrough(opener, answerer);
      expect(status).toBe(200);
      expect(request).toMatchObject({
        status: 'verified',
        presented: {
          badge: [
            {
              issuer: `${a.publicBaseUrl}/ctrl/oid4vci/${issuer}`,
              status: 'valid',
              claims: { given_name: 'Erika' },
            },
          ],
        },
      });
    }

    const revoked = await a.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': issuer },
      body: { credentialId, credentialStatus: { statusPurpose: 'revocation' } },
    });
    expect(revoked.status).toBe(204);

    // B heard nothing of it: its next answer reads the row.
    for (const [opener, answerer] of [
      [a, b],
      [b, b],
      [a, a],
    ]) {
      const { status, request } = await presentThrough(opener, answerer);
      expect(status).toBe(400);
      expect(request).toMatchObject({
        status: 'failed',
        outcome: {
          code: 'credential_revoked',
          reason: 'badge: the status list says the credential is revoked (INVALID)',
        },
      });
    }
  });
});
