import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { clientAuthenticationNone, setGlobalConfig as setOauth2Config } from '@openid4vc/oauth2';
import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import { type Browser } from 'playwright-core';
import { demoConfigurations } from '../../src/oid4vci/demo-configurations.js';
import { launchChromium } from '../support/chromium.js';
import { independentVerifier } from '../support/oid4vci-holder.js';
import { openid4vciWallet, walletKey } from '../support/oid4vci-wallet.js';
import { call, passwordGrant, type ApiResponse } from '../support/test-service.js';
import { eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startCluster, type Cluster } from './support/cluster.js';

type Json = Record<string, unknown>;

const tenantId = 'acme';
/** Local mode's demo badge: given_name and employee_id from the login (src/oid4vci/demo-configurations.ts). */
const badge = demoConfigurations[0];
const clientId = 'https://wallet.example';
const realmAuth = '/auth/realms/agent-cloud/protocol/openid-connect/auth';

/** A wallet's loopback redirect URI (RFC 8252 §7.3): answers a page and hands over what came back. */
async function loopbackRedirect(cleanup: Cleanup) {
  const arrived: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Chromium also asks for /favicon.ico.
    if (url.pathname === '/callback') arrived.push(url);
    response.writeHead(200, { 'content-type': 'text/html' }).end('<p>Back in the wallet.</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.add('stop the redirect receiver', () => {
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { uri: `http://127.0.0.1:${port}/callback`, arrived };
}

/**
 * The authorization code flow as deployed (docs/oid4vci.md, "The authorization code flow"): two
 * instances on one database behind real nginx, the tenant's login at the bundled realm (the embedded
 * issuer). OWF's wallet pushes its request to instance A; real Chromium opens the authorize link
 * through nginx, and the demo person types her name and password into the realm's form; the wallet's
 * loopback receives the code; token, nonce and credential go to instance B. The SD-JWT VC is checked
 * with @sd-jwt/sd-jwt-vc against the issuer's published keys.
 */
describe('Authorization code issuance in Chromium, through nginx, across two instances', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  let admin: string;
  let browser: Browser;
  const issuer = () => `${cluster.origin}/ctrl/oid4vci/${tenantId}`;

  const api = <Body = Json>(path: string, body?: unknown): Promise<ApiResponse<Body>> =>
    call<Body>(cluster.origin, `/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${admin}`, 'x-tenant-id': tenantId },
      body,
    });

  beforeAll(async () => {
    setOauth2Config({ allowInsecureUrls: true });
    setOid4vciConfig({ allowInsecureUrls: true });
    cluster = await startCluster(cleanup, 'authorization-code');
    admin = (await passwordGrant(cluster.origin, 'admin', 'admin')).access_token;
    const tenant = await call(cluster.origin, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      query: { id: tenantId, label: 'ACME' },
    });
    expect(tenant.status).toBe(201);
    expect((await api('/oid4vci/credential-configurations/create', badge)).status).toBe(201);
    browser = await launchChromium();
    // The browser first at the end: it holds keep-alive connections nginx and the instances wait for.
    cleanup.add('close Chromium', () => browser.close());
  }, 120_000);
  afterAll(async () => {
    setOauth2Config({ allowInsecureUrls: false });
    setOid4vciConfig({ allowInsecureUrls: false });
    await cleanup.run();
  }, 60_000);

  /** The person, in a browser: the authorize link through nginx, the realm's form, back at the wallet. */
  async function logIn(authorizationRequestUrl: string, redirectUri: string, person: string) {
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    try {
      const page = await context.newPage();
      await page.goto(authorizationRequestUrl);
      await page.locator('#kc-form-login').waitFor();
      expect(page.url().startsWith(`${cluster.origin}${realmAuth}?`)).toBe(true);
      expect(new URL(page.url()).searchParams.get('client_id')).toBe('agent-issuance-login');
      await page.locator('#username').fill(person);
      await page.locator('#password').fill(person);
      await Promise.all([
        page.waitForURL((url) => url.toString().startsWith(redirectUri)),
        page.locator('#kc-login').click(),
      ]);
      expect(await page.locator('body').innerText()).toContain('Back in the wallet.');
    } finally {
      await context.close();
    }
  }

  /** OWF's wallet, its requests sent to `target()`'s instance in place of nginx, and what it sent. */
  async function pinnedWallet(target: () => string) {
    const sent: string[] = [];
    const pinnedFetch: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input).replace(
        cluster.origin,
        target(),
      );
      sent.push(`${init?.method ?? 'GET'} ${url}`);
      return fetch(url, init);
    };
    const holder = await walletKey();
    const dpopKey = await walletKey();
    const dpop = {
      signer: { method: 'jwk' as const, publicJwk: dpopKey.publicJwk as never, alg: 'ES256' },
    };
    const wallet = openid4vciWallet(
      [holder, dpopKey],
      {},
      undefined,
      clientAuthenticationNone({ clientId }),
      pinnedFetch,
    );
    return { wallet, holder, dpop, sent };
  }

  /** An offer pinned to Erika, and the wallet's pushed request for it (at `target()`). */
  async function pushFor(target: () => string, redirectUri: string) {
    const offer = await api<Json>('/oid4vci/offers', {
      credentialConfigurationId: badge.id,
      grant: 'authorization_code',
      subject: 'erika',
      claims: {},
    });
    expect(offer.status).toBe(201);
    const pinned = await pinnedWallet(target);
    const credentialOffer = await pinned.wallet.resolveCredentialOffer(
      offer.body.credentialOfferUri as string,
    );
    const issuerMetadata = await pinned.wallet.resolveIssuerMetadata(issuer());
    const request = await pinned.wallet.createAuthorizationRequestUrlFromOffer({
      clientId,
      redirectUri,
      credentialOffer,
      issuerMetadata,
      dpop: pinned.dpop,
      scope: badge.id,
    });
    return {
      ...pinned,
      ...request,
      offerId: offer.body.id as string,
      credentialOffer,
      issuerMetadata,
    };
  }

  it('issues Erika’s badge: PAR at A, her login in Chromium through nginx, token and credential at B', async () => {
    const [instanceA, instanceB] = cluster.instances;
    // The wallet's requests go to one instance at a time, by its URL in place of nginx's.
    let pinned = instanceA.url;
    const redirect = await loopbackRedirect(cleanup);
    const { wallet, holder, dpop, sent, authorizationRequestUrl, pkce, ...pushed } = await pushFor(
      () => pinned,
      redirect.uri,
    );
    const { credentialOffer, issuerMetadata } = pushed;
    expect(sent).toContain(`POST ${instanceA.url}/ctrl/oid4vci/${tenantId}/par`);
    expect(authorizationRequestUrl.startsWith(`${issuer()}/authorize?`)).toBe(true);

    const logFrom = cluster.gateway.accessEntries().length;
    await logIn(authorizationRequestUrl, redirect.uri, 'erika');
    expect(redirect.arrived).toHaveLength(1);
    const back = redirect.arrived[0].searchParams;
    expect(back.get('iss')).toBe(issuer());
    expect(back.has('error')).toBe(false);
    const code = back.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Every step of the browser's went through nginx: authorize, the realm's form, the callback.
    const browsed = await eventually(
      () => {
        const entries = cluster.gateway.accessEntries().slice(logFrom);
        return entries.some((entry) => entry.uri.startsWith(`/ctrl/oid4vci/${tenantId}/login/`))
          ? entries
          : undefined;
      },
      5_000,
      'the browser’s requests in the access log',
    );
    expect(
      browsed.map((entry) => `${entry.method} ${entry.uri.split('?')[0]} ${entry.status}`),
    ).toEqual(
      expect.arrayContaining([
        `GET /ctrl/oid4vci/${tenantId}/authorize 303`,
        `GET ${realmAuth} 200`,
        'POST /auth/realms/agent-cloud/login-actions/authenticate 302',
        `GET /ctrl/oid4vci/${tenantId}/login/callback 303`,
      ]),
    );

    // Token, nonce and credential at the other instance.
    pinned = instanceB.url;
    const token = await wallet.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: pkce!.codeVerifier,
      redirectUri: redirect.uri,
      dpop,
    });
    expect(token.accessTokenResponse.token_type).toBe('DPoP');
    const { c_nonce: nonce } = await wallet.requestNonce({ issuerMetadata });
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: badge.id,
      signer: { method: 'jwk', publicJwk: holder.publicJwk as never, alg: 'ES256' },
      nonce,
    });
    const answer = await wallet.retrieveCredentials({
      issuerMetadata,
      credentialConfigurationId: badge.id,
      proofs: { jwt: [jwt] },
      accessToken: token.accessTokenResponse.access_token,
      dpop: token.dpop ?? dpop,
    });
    expect(answer.response.status).toBe(200);
    for (const step of ['token', 'nonce', 'credential']) {
      expect(sent).toContain(`POST ${instanceB.url}/ctrl/oid4vci/${tenantId}/${step}`);
    }

    const [{ credential }] = answer.credentialResponse.credentials as { credential: string }[];
    const { payload } = await independentVerifier().verify(credential);
    expect(payload).toMatchObject({
      iss: issuer(),
      vct: badge.vct,
      given_name: 'Erika',
      employee_id: 'erika',
      cnf: { jwk: { x: holder.publicJwk.x, y: holder.publicJwk.y } },
    });
    const issued = await api<Json>(`/oid4vci/offers/${pushed.offerId}`);
    expect(issued.body).toMatchObject({ status: 'issued', grant: 'authorization_code' });
  });

  it('sends another person who logs in back to the wallet with access_denied and no code', async () => {
    const redirect = await loopbackRedirect(cleanup);
    const { authorizationRequestUrl } = await pushFor(() => cluster.instances[1].url, redirect.uri);
    // demo is a person of the realm too (the demo tenant's user), but not the one the offer names.
    await logIn(authorizationRequestUrl, redirect.uri, 'demo');
    expect(redirect.arrived).toHaveLength(1);
    const back = redirect.arrived[0].searchParams;
    expect(back.get('error')).toBe('access_denied');
    expect(back.get('iss')).toBe(issuer());
    expect(back.has('code')).toBe(false);
  });
});
