import { createHash, randomBytes } from 'node:crypto';
import { setGlobalConfig as setOauth2Config } from '@openid4vc/oauth2';
import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import { AuthorizationPurge } from '../src/oid4vci/authorization/authorization-purge.js';
import { startTestService, type TestService } from './support/test-service.js';
import { signedPayload } from './support/oid4vci-holder.js';
import { useTestPersonLogin } from './support/test-person-login.js';
import { type WalletKey } from './support/oid4vci-wallet.js';
import { codeFlowClient, codeFlowKeys, issueByCode } from './support/authorization-code-wallet.js';

type Json = Record<string, unknown>;

const badge = {
  id: 'Badge',
  format: 'dc+sd-jwt',
  vct: 'https://univ.example/credentials/badge',
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['student_id'], mandatory: true },
    { path: ['faculty'] },
  ],
  claimsFromLogin: { given_name: 'given_name', student_id: 'preferred_username' },
};
/** Every claim from the login: a wallet may ask for it without an offer. */
const card = {
  id: 'Card',
  format: 'dc+sd-jwt',
  vct: 'https://univ.example/credentials/card',
  claims: [{ path: ['given_name'], mandatory: true }, { path: ['student_id'] }],
  claimsFromLogin: { given_name: 'given_name', student_id: 'preferred_username' },
};
const { clientId, redirectUri } = codeFlowClient;

/**
 * The authorization code flow (OpenID4VCI 1.0 §5, §6) end to end over HTTP with a wallet built on OWF's
 * library: PAR with PKCE and DPoP, the authorize redirect through the (test) login, the code with `iss`
 * (RFC 9207), the token bound to the DPoP key, and an SD-JWT VC with the login's claims.
 */
describe('OpenID4VCI authorization code flow', () => {
  let service: TestService;
  let login: ReturnType<typeof useTestPersonLogin>;
  const issuer = () => `${service.publicBaseUrl}/ctrl/oid4vci/univ`;

  beforeAll(async () => {
    // The test service's issuer is http://localhost.
    setOauth2Config({ allowInsecureUrls: true });
    setOid4vciConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'univ', label: 'University of Examples' });
    for (const configuration of [badge, card]) {
      const made = await service.request(
        '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
        { method: 'POST', headers: { 'x-tenant-id': 'univ' }, body: configuration },
      );
      expect(made.status).toBe(201);
    }
    login = useTestPersonLogin(service);
  });
  afterAll(async () => {
    setOauth2Config({ allowInsecureUrls: false });
    setOid4vciConfig({ allowInsecureUrls: false });
    await service.close();
  });

  async function offer(body: Json) {
    const made = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: { credentialConfigurationId: 'Badge', grant: 'authorization_code', ...body },
    });
    expect(made.status).toBe(201);
    return made.body;
  }

  /** The browser's part: authorize, the login, back at the wallet's redirect URI. */
  async function browse(authorizationRequestUrl: string): Promise<URL> {
    const authorize = await fetch(authorizationRequestUrl, { redirect: 'manual' });
    expect(authorize.status).toBe(303);
    const callback = await fetch(authorize.headers.get('location')!, { redirect: 'manual' });
    expect(callback.status).toBe(303);
    return new URL(callback.headers.get('location')!);
  }

  const flow = () => ({ issuer: issuer(), browse });
  /** The whole flow from the offer's link, or wallet-initiated for `Card`. */
  const issue = (link: string | undefined, keys: { holder: WalletKey; dpop: WalletKey }) =>
    issueByCode(flow(), link === undefined ? { configurationId: 'Card' } : { link }, keys);

  it('advertises the flow in the authorization server metadata', async () => {
    const response = await fetch(
      `${service.publicBaseUrl}/.well-known/oauth-authorization-server/ctrl/oid4vci/univ`,
    );
    const metadata = (await response.json()) as Json;
    expect(metadata).toMatchObject({
      authorization_endpoint: `${issuer()}/authorize`,
      pushed_authorization_request_endpoint: `${issuer()}/par`,
      require_pushed_authorization_requests: true,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(metadata.grant_types_supported).toContain('authorization_code');
  });

  it('issues an offer for the pinned person with the login’s claims over the offer’s', async () => {
    const made = await offer({ subject: 'erika', claims: { faculty: 'Physics' } });
    const grants = (made.credentialOffer as { grants: Record<string, Json> }).grants;
    expect(Object.keys(grants)).toEqual(['authorization_code']);
    login.claims = { sub: 'u-1', preferred_username: 'erika', given_name: 'Erika' };
    const issued = await issue(made.credentialOfferUri as string, await codeFlowKeys());
    const payload = signedPayload(issued.credential!);
    expect(payload.iss).toBe(issuer());
    const disclosed = issued
      .credential!.split('~')
      .slice(1, -1)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown[]);
    expect(disclosed.map(([, name, value]) => [name, value]).sort()).toEqual([
      ['faculty', 'Physics'],
      ['given_name', 'Erika'],
      ['student_id', 'erika'],
    ]);
    const status = await service.request<Json>(
      `/ctrl/api/v1.0/oid4vci/offers/${made.id as string}`,
      {
        headers: { 'x-tenant-id': 'univ' },
      },
    );
    expect(status.body).toMatchObject({ status: 'issued', grant: 'authorization_code' });
  });

  it('issues wallet-initiated with authorization_details and answers credential_identifiers', async () => {
    login.claims = { sub: 'u-2', preferred_username: 'max', given_name: 'Max' };
    const issued = await issue(undefined, await codeFlowKeys());
    expect(issued.token!.authorization_details).toEqual([
      {
        type: 'openid_credential',
        credential_configuration_id: 'Card',
        credential_identifiers: ['Card'],
      },
    ]);
    expect(signedPayload(issued.credential!).vct).toBe(card.vct);
  });

  it('refuses another person than the pinned one: access_denied, no code, an event', async () => {
    const made = await offer({ subject: 'erika', claims: {} });
    login.claims = { sub: 'u-3', preferred_username: 'mallory', given_name: 'Mallory' };
    const outcome = await issue(made.credentialOfferUri as string, await codeFlowKeys());
    expect(outcome).toEqual({ error: 'access_denied' });
    const events = await service.dataSource.query<{ body: string }[]>(
      `SELECT body FROM webhook_event WHERE type = 'oid4vci.authorization.denied'`,
    );
    expect(events.map((event) => JSON.parse(event.body) as Json)).toContainEqual(
      expect.objectContaining({
        data: { offerId: made.id, configurationId: 'Badge', reason: 'subject_mismatch' },
      }),
    );
  });

  it('refuses a login that lacks a required claim', async () => {
    const made = await offer({ claims: {} });
    login.claims = { sub: 'u-4', given_name: 'Nobody' };
    expect(await issue(made.credentialOfferUri as string, await codeFlowKeys())).toEqual({
      error: 'access_denied',
    });
  });

  it('refuses an authorize request that was not pushed, and a request_uri used twice', async () => {
    const plain = await fetch(
      `${issuer()}/authorize?response_type=code&client_id=x&redirect_uri=${encodeURIComponent(redirectUri)}`,
      { redirect: 'manual' },
    );
    expect(plain.status).toBe(400);
    expect(await plain.text()).toMatch(/pushed authorization requests only/);
    const challenge = createHash('sha256').update('v'.repeat(43)).digest('base64url');
    const par = await fetch(`${issuer()}/par`, {
      method: 'POST',
      body: new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'Card',
      }),
    });
    const pushed = (await par.json()) as { request_uri: string };
    expect({ status: par.status, pushed }).toMatchObject({
      status: 201,
      pushed: { expires_in: 60 },
    });
    const requestUri = pushed.request_uri;
    const url = `${issuer()}/authorize?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(requestUri)}`;
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(400);
  });

  it('refuses a code used twice at the token endpoint, and nothing more is issued', async () => {
    const made = await offer({ claims: {} });
    login.claims = { sub: 'u-5', preferred_username: 'lena', given_name: 'Lena' };
    const issued = await issue(made.credentialOfferUri as string, await codeFlowKeys());
    const again = await fetch(`${issuer()}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: issued.code!,
        code_verifier: 'v'.repeat(43),
        redirect_uri: redirectUri,
        client_id: clientId,
      }),
    });
    expect(again.status).toBe(400);
    expect(((await again.json()) as Json).error).toBe('invalid_grant');
  });

  /** PAR, authorize and login by hand (wallet-initiated): the code and its verifier. */
  async function rawCode(tenant = 'univ') {
    const verifier = randomBytes(32).toString('base64url');
    const par = await fetch(`${service.publicBaseUrl}/ctrl/oid4vci/${tenant}/par`, {
      method: 'POST',
      body: new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        scope: 'Card',
        state: 'wallet-state',
      }),
    });
    expect(par.status).toBe(201);
    const { request_uri: requestUri } = (await par.json()) as { request_uri: string };
    const back = await browse(
      `${service.publicBaseUrl}/ctrl/oid4vci/${tenant}/authorize?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(requestUri)}`,
    );
    expect(back.searchParams.get('state')).toBe('wallet-state');
    return { code: back.searchParams.get('code')!, verifier };
  }

  const redeem = (code: string, verifier: string, tenant = 'univ') =>
    fetch(`${service.publicBaseUrl}/ctrl/oid4vci/${tenant}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
        client_id: clientId,
      }),
    });

  it('gives one code one token when two requests redeem it at once', async () => {
    login.claims = { sub: 'u-6', preferred_username: 'jan', given_name: 'Jan' };
    const { code, verifier } = await rawCode();
    const answers = await Promise.all([redeem(code, verifier), redeem(code, verifier)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });

  it('refuses a wrong verifier, and another tenant’s code', async () => {
    await service.client().createTenant({ id: 'other', label: 'Other' });
    login.claims = { sub: 'u-7', preferred_username: 'ida', given_name: 'Ida' };
    const first = await rawCode();
    const wrong = await redeem(first.code, randomBytes(32).toString('base64url'));
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as Json).error).toBe('invalid_grant');
    const second = await rawCode();
    const elsewhere = await redeem(second.code, second.verifier, 'other');
    expect(elsewhere.status).toBe(400);
    expect(((await elsewhere.json()) as Json).error).toBe('invalid_grant');
  });

  it('refuses attestation headers it cannot verify, and another tenant’s request_uri', async () => {
    const form = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'Card',
    };
    const attested = await fetch(`${issuer()}/par`, {
      method: 'POST',
      headers: {
        'OAuth-Client-Attestation': 'eyJ.forged.jwt',
        'OAuth-Client-Attestation-PoP': 'x',
      },
      body: new URLSearchParams(form),
    });
    expect(attested.status).toBe(401);
    expect(((await attested.json()) as Json).error).toBe('invalid_client');
    const par = await fetch(`${issuer()}/par`, { method: 'POST', body: new URLSearchParams(form) });
    const { request_uri: requestUri } = (await par.json()) as { request_uri: string };
    const elsewhere = await fetch(
      `${service.publicBaseUrl}/ctrl/oid4vci/other-univ/authorize?client_id=${encodeURIComponent(clientId)}&request_uri=${encodeURIComponent(requestUri)}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
  });

  it('purges authorizations past their time, in any state', async () => {
    const [{ count }] = await service.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM oid4vci_authorization`,
    );
    expect(count).toBeGreaterThan(0);
    await service.dataSource.query(
      `UPDATE oid4vci_authorization SET expires_at = now() - interval '1 second'`,
    );
    expect(await service.app.get(AuthorizationPurge).purgeExpired()).toBe(count);
    expect(await service.dataSource.query(`SELECT id FROM oid4vci_authorization`)).toEqual([]);
  });
});
