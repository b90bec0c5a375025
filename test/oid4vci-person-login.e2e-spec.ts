import { randomBytes } from 'node:crypto';
import { generateKeyPair, SignJWT } from 'jose';
import { LoginProviderError } from '../src/oid4vci/login-provider/login-provider.error.js';
import { PersonLoginService } from '../src/oid4vci/login-provider/person-login.service.js';
import {
  browserLogin,
  maxClaims,
  pkcePair,
  signIdToken,
  startForgingProvider,
  startOidcProvider,
  type ForgingProvider,
  type RunningProvider,
} from './support/login-providers.js';
import { startTestService, type TestService } from './support/test-service.js';

const base = '/ctrl/api/v1.0/oid4vci/login-provider';

/**
 * A person logs in for a credential: `start` and `finish` of the issuer's OpenID Connect client against
 * the embedded issuer's realm (the demo person Erika, by HTTP through its login page) and against an
 * independent OpenID provider (panva's oidc-provider) on loopback; forged ID tokens are refused.
 */
describe('OpenID4VCI: the person login', () => {
  let service: TestService;
  let login: PersonLoginService;
  let independent: RunningProvider;
  let forging: ForgingProvider;
  const callback = (tenantId: string) =>
    `${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}/login/callback`;

  beforeAll(async () => {
    // The independent provider is on loopback over http, which production would refuse.
    service = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    for (const id of ['bundled', 'acme', 'forged']) {
      await service.client().createTenant({ id, label: id });
    }
    login = service.app.get(PersonLoginService, { strict: false });
    independent = await startOidcProvider({
      clientId: 'acme-issuance',
      clientSecret: 'acme-secret-4711',
      redirectUri: callback('acme'),
    });
    forging = await startForgingProvider();
    for (const [tenantId, issuer] of [
      ['acme', independent.issuer],
      ['forged', forging.issuer],
    ]) {
      const set = await service.request(base, {
        method: 'POST',
        headers: { 'x-tenant-id': tenantId },
        body: { issuer, clientId: 'acme-issuance', clientSecret: 'acme-secret-4711' },
      });
      expect(set.status).toBe(200);
    }
  });
  afterAll(async () => {
    await service.close();
    await independent.close();
    await forging.close();
  });

  /** start and the browser's login: what finish takes. */
  async function code(tenantId: string, username: string, password: string) {
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(8).toString('base64url');
    const nonce = randomBytes(16).toString('base64url');
    const url = await login.start(tenantId, { state, nonce, codeChallenge: challenge });
    const back = await browserLogin(url, username, password, callback(tenantId));
    expect(back.searchParams.get('state')).toBe(state);
    return { code: back.searchParams.get('code') ?? '', codeVerifier: verifier, nonce };
  }

  /** start, the browser's login, finish: the person's claims. */
  async function logIn(tenantId: string, username: string, password: string, finishNonce?: string) {
    const started = await code(tenantId, username, password);
    return login.finish(tenantId, { ...started, nonce: finishNonce ?? started.nonce });
  }

  it('logs the demo person in at the bundled realm and answers her claims from the ID token and userinfo', async () => {
    const { challenge } = pkcePair();
    const url = new URL(
      await login.start('bundled', { state: 's', nonce: 'n', codeChallenge: challenge }),
    );
    expect(`${url.origin}${url.pathname}`).toBe(
      `${service.publicBaseUrl}/auth/realms/agent-cloud/protocol/openid-connect/auth`,
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'agent-issuance-login',
      redirect_uri: callback('bundled'),
      scope: 'openid profile email',
      state: 's',
      nonce: 'n',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });

    const claims = await logIn('bundled', 'erika', 'erika');
    expect(claims).toMatchObject({
      iss: `${service.publicBaseUrl}/auth/realms/agent-cloud`,
      sub: expect.any(String),
      given_name: 'Erika',
      family_name: 'Mustermann',
      name: 'Erika Mustermann',
      email: 'erika.mustermann@agent-cloud.local',
      birthdate: '1964-08-12',
    });
    for (const mechanic of ['aud', 'exp', 'iat', 'nonce', 'at_hash', 'azp', 'sid']) {
      expect(claims).not.toHaveProperty(mechanic);
    }
  });

  it('logs a person in at an independent OpenID provider with the tenant’s client and secret', async () => {
    const claims = await logIn('acme', 'max', 'any-password');
    expect(claims).toEqual({ iss: independent.issuer, sub: 'max', ...maxClaims });
  });

  it('refuses the ID token when finish is given another nonce than start sent', async () => {
    const failure = await logIn('acme', 'max', 'x', 'another-nonce').catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LoginProviderError);
    expect(failure).toMatchObject({ reason: 'id_token_refused' });
  });

  it('refuses a code the provider does not know, the same code twice, and another verifier', async () => {
    const madeUp = await login
      .finish('acme', { code: 'made-up', codeVerifier: pkcePair().verifier, nonce: 'n' })
      .catch((error: unknown) => error);
    expect(madeUp).toMatchObject({ reason: 'code_refused' });
    const once = await code('acme', 'max', 'x');
    expect(await login.finish('acme', once)).toMatchObject({ sub: 'max' });
    const twice = await login.finish('acme', once).catch((error: unknown) => error);
    expect(twice).toMatchObject({ reason: 'code_refused' });
    const stolen = await code('bundled', 'erika', 'erika');
    const otherVerifier = await login
      .finish('bundled', { ...stolen, codeVerifier: pkcePair().verifier })
      .catch((error: unknown) => error);
    expect(otherVerifier).toMatchObject({ reason: 'code_refused' });
  });

  describe('forged ID tokens', () => {
    const finish = () =>
      login
        .finish('forged', { code: 'any', codeVerifier: pkcePair().verifier, nonce: 'the-nonce' })
        .catch((error: unknown) => error);
    const claims = (issuer: string) => {
      const now = Math.floor(Date.now() / 1000);
      return {
        iss: issuer,
        sub: 'mallory',
        aud: 'acme-issuance',
        nonce: 'the-nonce',
        iat: now,
        exp: now + 300,
      };
    };

    it('accepts the well-made one (so that each refusal below is for its one change)', async () => {
      forging.answer((issuer) => signIdToken(forging.publishedKey, claims(issuer)));
      expect(await finish()).toEqual({ iss: forging.issuer, sub: 'mallory' });
    });

    it.each([
      ['signed by another key under the published kid', 'other-key'],
      ['for another client', 'aud'],
      ['for another login (nonce)', 'nonce'],
      ['from another issuer', 'iss'],
      ['expired', 'exp'],
      ['naming the client among others without azp', 'aud-list'],
      ['authorized for another party (azp)', 'azp'],
    ])('refuses one %s', async (_name, change) => {
      const other = (await generateKeyPair('ES256')).privateKey;
      forging.answer((issuer) => {
        const forged: Record<string, unknown> = claims(issuer);
        if (change === 'aud') forged.aud = 'someone-else';
        if (change === 'nonce') forged.nonce = 'stolen-nonce';
        if (change === 'iss') forged.iss = 'https://evil.example';
        if (change === 'exp') forged.exp = Math.floor(Date.now() / 1000) - 60;
        if (change === 'aud-list') forged.aud = ['acme-issuance', 'someone-else'];
        if (change === 'azp') forged.azp = 'someone-else';
        return signIdToken(change === 'other-key' ? other : forging.publishedKey, forged);
      });
      const failure = await finish();
      expect(failure).toBeInstanceOf(LoginProviderError);
      expect(failure).toMatchObject({ reason: 'id_token_refused' });
    });

    it('refuses one with a MAC keyed with the client secret (HS256), as no provider key signs that', async () => {
      forging.answer((issuer) =>
        new SignJWT(claims(issuer))
          .setProtectedHeader({ alg: 'HS256', kid: 'published' })
          .sign(new TextEncoder().encode('acme-secret-4711')),
      );
      expect(await finish()).toMatchObject({ reason: 'id_token_refused' });
    });

    it('refuses userinfo that names another person than the ID token', async () => {
      forging.answer((issuer) => signIdToken(forging.publishedKey, claims(issuer)));
      forging.answerUserinfo({ sub: 'somebody-else', given_name: 'Eve' });
      expect(await finish()).toMatchObject({ reason: 'id_token_refused' });
      forging.answerUserinfo({
        sub: 'mallory',
        given_name: 'Mallory',
        iss: 'https://evil.example',
      });
      // The signed ID token's iss wins over userinfo's.
      expect(await finish()).toEqual({
        iss: forging.issuer,
        sub: 'mallory',
        given_name: 'Mallory',
      });
      forging.answerUserinfo({ sub: 'mallory' });
    });

    it('refuses an unsigned ID token (alg none)', async () => {
      forging.answer((issuer) => {
        const encode = (part: unknown) => Buffer.from(JSON.stringify(part)).toString('base64url');
        return Promise.resolve(`${encode({ alg: 'none' })}.${encode(claims(issuer))}.`);
      });
      expect(await finish()).toMatchObject({ reason: 'id_token_refused' });
    });
  });
});
