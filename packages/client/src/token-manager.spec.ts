import { TokenManager, type Credentials } from './token-manager.js';
import { TokenRequestError } from './token-request-error.js';

const tokenUrl = 'https://agent.example/auth/realms/agent-cloud/protocol/openid-connect/token';
const apiUrl = 'https://agent.example/ctrl/api/v1.0/tenants';
const second = 1000;

interface TokenAnswer {
  status?: number;
  body?: unknown;
  text?: string;
}

/**
 * A token endpoint and an API on a clock the test moves. The token endpoint answers like Keycloak (access
 * 600 s, refresh 1800 s) unless the test queues other answers; the API accepts the tokens in `valid`.
 */
class FakeRealm {
  now = 1_700_000_000_000;
  readonly grants: URLSearchParams[] = [];
  readonly apiCalls: { authorization: string | null; body: string }[] = [];
  readonly queued: TokenAnswer[] = [];
  readonly valid = new Set<string>();
  /** The API refuses every token, fresh or not. */
  refuseAll = false;
  /** While set, token requests wait for it (to have several callers in flight at once). */
  gate: Promise<void> | undefined;
  private issued = 0;

  readonly fetch = async (request: Request): Promise<Response> => {
    if (request.url === tokenUrl) return this.token(request);
    const authorization = request.headers.get('authorization');
    this.apiCalls.push({ authorization, body: await request.text() });
    const ok =
      !this.refuseAll &&
      authorization !== null &&
      this.valid.has(authorization.replace(/^Bearer /, ''));
    return new Response(JSON.stringify(ok ? { ok: true } : { status: 401 }), {
      status: ok ? 200 : 401,
      headers: { 'content-type': ok ? 'application/json' : 'application/problem+json' },
    });
  };

  manager(credentials: Credentials = { username: 'admin', password: 'secret' }): TokenManager {
    return new TokenManager({ tokenUrl, credentials, fetch: this.fetch, now: () => this.now });
  }

  grantTypes(): (string | null)[] {
    return this.grants.map((grant) => grant.get('grant_type'));
  }

  private async token(request: Request): Promise<Response> {
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(await request.text());
    this.grants.push(form);
    if (this.gate !== undefined) await this.gate;
    const answer = this.queued.shift();
    if (answer !== undefined) {
      return new Response(answer.text ?? JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { 'content-type': 'application/json' },
      });
    }
    this.issued += 1;
    const accessToken = `access-${this.issued}`;
    this.valid.add(accessToken);
    const clientCredentials = form.get('grant_type') === 'client_credentials';
    return Response.json({
      access_token: accessToken,
      expires_in: 600,
      refresh_expires_in: clientCredentials ? 0 : 1800,
      ...(clientCredentials ? {} : { refresh_token: `refresh-${this.issued}` }),
      token_type: 'Bearer',
    });
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe(TokenManager.name, () => {
  let realm: FakeRealm;
  beforeEach(() => {
    realm = new FakeRealm();
  });

  describe('with a password', () => {
    it('obtains the first token with the seed password grant of agent-client', async () => {
      const tokens = realm.manager();
      expect(await tokens.accessToken()).toBe('access-1');
      expect(Object.fromEntries(realm.grants[0])).toEqual({
        grant_type: 'password',
        client_id: 'agent-client',
        username: 'admin',
        password: 'secret',
      });
    });

    it('reuses the cached token while it has more than 60 seconds left', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 539 * second;
      expect(await tokens.accessToken()).toBe('access-1');
      realm.now += 999;
      expect(await tokens.accessToken()).toBe('access-1');
      expect(realm.grants).toHaveLength(1);
    });

    it('renews with the refresh grant when the access token expires within 60 seconds', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 540 * second;
      expect(await tokens.accessToken()).toBe('access-2');
      expect(Object.fromEntries(realm.grants[1])).toEqual({
        grant_type: 'refresh_token',
        client_id: 'agent-client',
        refresh_token: 'refresh-1',
      });
    });

    it('renews with the refresh grant after the access token has expired', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 601 * second;
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token']);
    });

    it('uses the refresh token of the latest grant', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 600 * second;
      await tokens.accessToken();
      realm.now += 600 * second;
      expect(await tokens.accessToken()).toBe('access-3');
      expect(realm.grants[2].get('refresh_token')).toBe('refresh-2');
    });

    it('logs in again with the password when the refresh token has expired too', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 1801 * second;
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'password']);
    });

    it('logs in again with the password when the refresh token expires within 60 seconds', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 1740 * second;
      await tokens.accessToken();
      expect(realm.grantTypes()).toEqual(['password', 'password']);
    });

    it('logs in again with the password when the issuer refuses the refresh token (invalid_grant)', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 600 * second;
      realm.queued.push({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Session not active' },
      });
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token', 'password']);
    });

    it('forgets a refused refresh token, even when the password grant after it fails', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 600 * second;
      realm.queued.push(
        { status: 400, body: { error: 'invalid_grant', error_description: 'Session not active' } },
        { status: 503, text: 'unavailable' },
      );
      await expect(tokens.accessToken()).rejects.toBeInstanceOf(TokenRequestError);
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token', 'password', 'password']);
    });

    it('reports any other refresh failure and keeps the refresh token for the next try', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 600 * second;
      realm.queued.push({ status: 503, text: '<html>Bad gateway</html>' });
      const failure = await tokens.accessToken().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TokenRequestError);
      expect(failure).toMatchObject({ status: 503, error: undefined, grant: 'refresh_token' });
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token', 'refresh_token']);
      expect(realm.grants[2].get('refresh_token')).toBe('refresh-1');
    });

    it('reports refused credentials with the OAuth error, and caches nothing', async () => {
      const tokens = realm.manager({ username: 'admin', password: 'wrong' });
      realm.queued.push({
        status: 401,
        body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
      });
      const failure = await tokens.accessToken().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TokenRequestError);
      expect(failure).toMatchObject({
        status: 401,
        error: 'invalid_grant',
        description: 'Invalid user credentials',
        grant: 'password',
      });
      expect((failure as Error).message).toContain('Invalid user credentials');
      expect(await tokens.accessToken()).toBe('access-1');
      expect(realm.grantTypes()).toEqual(['password', 'password']);
    });

    it('refuses a success answer without an access token', async () => {
      const tokens = realm.manager();
      realm.queued.push({ body: { token_type: 'Bearer' } });
      await expect(tokens.accessToken()).rejects.toBeInstanceOf(TokenRequestError);
    });

    it('sends the client secret of a confidential client', async () => {
      const tokens = realm.manager({
        username: 'admin',
        password: 'secret',
        clientId: 'agent-service',
        clientSecret: 'change-me',
      });
      await tokens.accessToken();
      expect(realm.grants[0].get('client_id')).toBe('agent-service');
      expect(realm.grants[0].get('client_secret')).toBe('change-me');
    });

    it('counts lifetimes from before the token request, not from its answer', async () => {
      const tokens = realm.manager();
      const slow = deferred();
      realm.gate = slow.promise;
      const first = tokens.accessToken();
      realm.now += 30 * second;
      slow.resolve();
      await first;
      realm.gate = undefined;
      // Asked at t=0 for 600 s: from t=540 on it counts as expiring, although it arrived at t=30.
      realm.now += 510 * second;
      expect(await tokens.accessToken()).toBe('access-2');
    });
  });

  describe('with client credentials', () => {
    const service = { clientId: 'agent-service', clientSecret: 'change-me' };

    it('obtains tokens with the client credentials grant', async () => {
      const tokens = realm.manager(service);
      expect(await tokens.accessToken()).toBe('access-1');
      expect(Object.fromEntries(realm.grants[0])).toEqual({
        grant_type: 'client_credentials',
        client_id: 'agent-service',
        client_secret: 'change-me',
      });
    });

    it('asks for a new client credentials grant when the token expires, as there is no refresh token', async () => {
      const tokens = realm.manager(service);
      await tokens.accessToken();
      realm.now += 539 * second;
      expect(await tokens.accessToken()).toBe('access-1');
      realm.now += 1 * second;
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['client_credentials', 'client_credentials']);
    });
  });

  describe('concurrent callers', () => {
    it('share one token request for the first token', async () => {
      const tokens = realm.manager();
      const slow = deferred();
      realm.gate = slow.promise;
      const all = Promise.all(Array.from({ length: 5 }, () => tokens.accessToken()));
      slow.resolve();
      expect(await all).toEqual(Array(5).fill('access-1'));
      expect(realm.grants).toHaveLength(1);
    });

    it('share one refresh when the token is about to expire', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.now += 590 * second;
      const slow = deferred();
      realm.gate = slow.promise;
      const all = Promise.all(Array.from({ length: 5 }, () => tokens.accessToken()));
      slow.resolve();
      expect(await all).toEqual(Array(5).fill('access-2'));
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token']);
    });

    it('all see a failed token request, and the next call tries again', async () => {
      const tokens = realm.manager();
      realm.queued.push({ status: 500, text: 'oops' });
      const slow = deferred();
      realm.gate = slow.promise;
      const all = Promise.allSettled([tokens.accessToken(), tokens.accessToken()]);
      slow.resolve();
      expect((await all).map((result) => result.status)).toEqual(['rejected', 'rejected']);
      realm.gate = undefined;
      expect(await tokens.accessToken()).toBe('access-1');
      expect(realm.grants).toHaveLength(2);
    });
  });

  describe('fetch', () => {
    it('sends the cached access token as a bearer token', async () => {
      const tokens = realm.manager();
      const response = await tokens.fetch(new Request(apiUrl));
      expect(response.status).toBe(200);
      await tokens.fetch(new Request(apiUrl));
      expect(realm.apiCalls.map((call) => call.authorization)).toEqual([
        'Bearer access-1',
        'Bearer access-1',
      ]);
      expect(realm.grants).toHaveLength(1);
    });

    it('renews once and retries once, with the same body, when the API answers 401', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      // The API stops accepting the token the manager still believes valid (a key rotation, say).
      realm.valid.delete('access-1');
      const response = await tokens.fetch(
        new Request(apiUrl, { method: 'POST', body: '{"id":"acme"}' }),
      );
      expect(response.status).toBe(200);
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token']);
      expect(realm.apiCalls).toEqual([
        { authorization: 'Bearer access-1', body: '{"id":"acme"}' },
        { authorization: 'Bearer access-2', body: '{"id":"acme"}' },
      ]);
    });

    it('gives up after one retry: a second 401 is the answer', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.refuseAll = true;
      const response = await tokens.fetch(new Request(apiUrl));
      expect(response.status).toBe(401);
      expect(realm.apiCalls).toHaveLength(2);
      expect(realm.grants).toHaveLength(2);
    });

    it('renews once for several requests refused with the same token', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.valid.delete('access-1');
      const responses = await Promise.all(
        Array.from({ length: 4 }, () => tokens.fetch(new Request(apiUrl))),
      );
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token']);
      expect(
        realm.apiCalls.filter((call) => call.authorization === 'Bearer access-2'),
      ).toHaveLength(4);
    });

    it('does not renew again for a 401 to a token that has already been replaced', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.valid.delete('access-1');
      await tokens.renewAfterRejection('access-1');
      expect(await tokens.renewAfterRejection('access-1')).toBe('access-2');
      expect(realm.grants).toHaveLength(2);
    });

    it('never offers a refused token again, even when renewing it failed', async () => {
      const tokens = realm.manager();
      await tokens.accessToken();
      realm.valid.delete('access-1');
      realm.queued.push({ status: 502, text: 'bad gateway' });
      await expect(tokens.fetch(new Request(apiUrl))).rejects.toBeInstanceOf(TokenRequestError);
      expect(await tokens.accessToken()).toBe('access-2');
      expect(realm.grantTypes()).toEqual(['password', 'refresh_token', 'refresh_token']);
    });
  });
});
