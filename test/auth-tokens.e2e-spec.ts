import { expectProblem } from './support/problems.js';
import { createHmac, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import {
  call,
  passwordGrant,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  deletePath,
  didPath,
  type Tenant,
  type TenantPage,
} from './support/api-shapes.js';
import {
  certsPath,
  type RsaJwk,
  base64url,
  compactJwt,
  rs256,
  decodeSegment,
  nowSeconds,
  expectUnauthorized,
  expectNoTokenIn,
  tenantIds,
  expectRefusedEverywhere,
  useEmbeddedIssuerService,
} from './support/auth-harness.js';

/** Which bearer tokens the service accepts and which it refuses (api.md, Authentication and authorization), through real HTTP. */
describe('Access tokens with the embedded issuer', () => {
  const harness = useEmbeddedIssuerService();
  const { adminClaims, issuerSigned, moveIssuerClock, strangerKey } = harness;
  let service: TestService;
  let issuerKey: KeyObject;
  let issuerKid: string;
  let issuer: string;
  let adminToken: string;
  let demoToken: string;
  beforeAll(() => {
    ({ service, issuerKey, issuerKid, issuer, adminToken, demoToken } = harness.context);
  });

  describe('a token it accepts', () => {
    it('accepts a token signed with the issuer key carrying the issuer claims, so the refusals below are caused by the one change each makes', async () => {
      const token = issuerSigned(adminClaims({ jti: `onrtro:${randomUUID()}` }));
      const created = await service.request<Tenant>(createPath, {
        method: 'POST',
        token,
        query: { id: 'self-signed', label: 'Self signed' },
      });
      expect(created.status).toBe(201);
      expect(await tenantIds(service)).toContain('self-signed');
      expect(
        (await service.request(deletePath('self-signed'), { method: 'POST', token })).status,
      ).toBe(204);
    });

    it('accepts a token that expired 2 seconds ago, within the clock tolerance', async () => {
      const now = nowSeconds();
      const token = issuerSigned(adminClaims({ iat: now - 602, exp: now - 2 }));
      const response = await service.request<TenantPage>(tenantsPath, { token });
      expect(response.status).toBe(200);
      expect(response.body.totalElements).toBeGreaterThanOrEqual(3);
    });

    it('accepts a single-string audience equal to agent-api, as Keycloak writes one audience', async () => {
      const token = issuerSigned(adminClaims({ aud: 'agent-api' }));
      expect((await service.request(tenantsPath, { token })).status).toBe(200);
    });
  });

  describe('a token accepted before, answered without verifying it again while it lasts', () => {
    it('still refuses that token with its signature, payload or header changed', async () => {
      const token = issuerSigned(adminClaims({ jti: `cached:${randomUUID()}` }));
      expect((await service.request(tenantsPath, { token })).status).toBe(200);
      const [header, payload, signature] = token.split('.');
      const forgedPayload = base64url(
        JSON.stringify({ ...decodeSegment(token, 1), preferred_username: 'mallory' }),
      );
      const forgedHeader = base64url(JSON.stringify({ ...decodeSegment(token, 0), cty: 'JWT' }));
      const flipped = signature[10] === 'A' ? 'B' : 'A';
      const variants = [
        `${header}.${payload}.${signature.slice(0, 10)}${flipped}${signature.slice(11)}`,
        `${header}.${forgedPayload}.${signature}`,
        `${forgedHeader}.${payload}.${signature}`,
      ];
      for (const variant of variants) {
        const response = await service.request(tenantsPath, { token: variant });
        expectUnauthorized(response, tenantsPath, 'invalid_token');
      }
      expect((await service.request(tenantsPath, { token })).status).toBe(200);
    });

    it('keeps each token to its own caller: an agent-user token between admin requests stays an agent-user', async () => {
      const asAdmin = () =>
        service.request(didPath, { token: adminToken, headers: { 'x-tenant-id': 'other' } });
      expect((await asAdmin()).status).toBe(200);
      const asDemo = await service.request(didPath, {
        token: demoToken,
        headers: { 'x-tenant-id': 'other' },
      });
      expectProblem(asDemo, 403, 'FORBIDDEN', didPath);
      const create = await service.request(createPath, {
        method: 'POST',
        token: demoToken,
        query: { id: 'not-by-demo', label: 'Not by demo' },
      });
      expectProblem(create, 403, 'FORBIDDEN', createPath);
      expect((await asAdmin()).status).toBe(200);
      expect(await tenantIds(service)).not.toContain('not-by-demo');
    });

    it('refuses a token it accepted once that token expires, saying it expired', async () => {
      // Within the 5 s tolerance for at least one more second, then expired.
      const exp = nowSeconds() - 3;
      const token = issuerSigned(adminClaims({ iat: exp - 600, exp }));
      expect((await service.request(tenantsPath, { token })).status).toBe(200);
      const refusedFrom = (exp + 5) * 1000;
      await new Promise((resolve) => setTimeout(resolve, refusedFrom - Date.now() + 50));
      const response = await service.request(tenantsPath, { token });
      expectUnauthorized(response, tenantsPath, 'invalid_token');
      expect(response.headers.get('www-authenticate')).toMatch(/expired/);
    });
  });

  describe('a request without a usable access token', () => {
    it('answers 401 with a bare challenge and changes nothing when no token is sent', async () => {
      const problem = await expectRefusedEverywhere(service, undefined, 'bare');
      expect(problem.detail).toMatch(/Bearer/);
    });

    it('answers 401 with a bare challenge to Basic credentials, even those of a real user', async () => {
      const basic = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
      await expectRefusedEverywhere(service, basic, 'bare');
    });

    it('answers 401 with a bare challenge to a Bearer header without a token', async () => {
      await expectRefusedEverywhere(service, 'Bearer', 'bare');
    });

    it('answers 401 to the admin token sent under another scheme name', async () => {
      const response = await call(service.url, tenantsPath, {
        headers: { authorization: `Token ${adminToken}` },
      });
      expect(response.status).toBe(401);
      expectNoTokenIn(response, adminToken);
    });

    it('does not take an access token from the query string', async () => {
      const response = await call(service.url, tenantsPath, {
        query: { access_token: adminToken },
      });
      expectUnauthorized(response, tenantsPath, 'bare');
      expectNoTokenIn(response, adminToken);
    });
  });

  describe('a forged or misused token', () => {
    const forgedTokens: [string, () => Promise<string> | string][] = [
      ['a token that is not a JWT', () => 'garbage'],
      ['a JWT of three segments that are not base64url JSON', () => 'abc.def.ghi'],
      [
        'a JWT without its signature segment',
        () => issuerSigned(adminClaims()).split('.').slice(0, 2).join('.'),
      ],
      [
        'an unsigned token (alg none) with valid claims',
        () => compactJwt({ alg: 'none', typ: 'JWT' }, adminClaims(), () => Buffer.alloc(0)),
      ],
      [
        'an unsigned token (alg none) naming the real key id',
        () =>
          compactJwt({ alg: 'none', typ: 'JWT', kid: issuerKid }, adminClaims(), () =>
            Buffer.alloc(0),
          ),
      ],
      [
        'an HS256 token whose secret is the PEM of the issuer public key',
        () => {
          const pem = createPublicKey(issuerKey).export({ type: 'spki', format: 'pem' });
          return compactJwt({ alg: 'HS256', typ: 'JWT', kid: issuerKid }, adminClaims(), (input) =>
            createHmac('sha256', pem).update(input).digest(),
          );
        },
      ],
      [
        'an HS256 token whose secret is the modulus of the published JWK',
        async () => {
          const certs = await call<{ keys: RsaJwk[] }>(service.url, certsPath);
          const modulus = Buffer.from(certs.body.keys[0].n, 'base64url');
          return compactJwt({ alg: 'HS256', typ: 'JWT', kid: issuerKid }, adminClaims(), (input) =>
            createHmac('sha256', modulus).update(input).digest(),
          );
        },
      ],
      [
        'an RS512 token signed with the issuer key (only RS256 is accepted)',
        () =>
          compactJwt({ alg: 'RS512', typ: 'JWT', kid: issuerKid }, adminClaims(), (input) =>
            sign('sha512', Buffer.from(input), issuerKey),
          ),
      ],
      [
        'a token with an unknown key id signed by another RSA key',
        () => rs256(strangerKey.privateKey, `unknown-${randomUUID()}`, adminClaims()),
      ],
      [
        'a token naming the real key id but signed by another RSA key',
        () => rs256(strangerKey.privateKey, issuerKid, adminClaims()),
      ],
      [
        'a token from another issuer',
        () => issuerSigned(adminClaims({ iss: 'http://evil/auth/realms/agent-cloud' })),
      ],
      [
        'a token whose issuer has a trailing slash',
        () => issuerSigned(adminClaims({ iss: `${issuer}/` })),
      ],
      ['a token without an audience', () => issuerSigned(adminClaims({ aud: undefined }))],
      ['a token for another audience', () => issuerSigned(adminClaims({ aud: 'account' }))],
      [
        'a token whose audience list lacks agent-api',
        () => issuerSigned(adminClaims({ aud: ['account', 'agent-client'] })),
      ],
      [
        'a refresh token of the password grant',
        async () => (await passwordGrant(service.url, 'admin', 'admin')).refresh_token!,
      ],
      [
        'an ID token of the password grant with scope openid',
        async () =>
          (await passwordGrant(service.url, 'admin', 'admin', { scope: 'openid' })).id_token!,
      ],
      [
        'a token that expired a minute ago',
        () => {
          const now = nowSeconds();
          return issuerSigned(adminClaims({ iat: now - 660, exp: now - 60 }));
        },
      ],
      [
        'a token not valid before a minute from now',
        () => issuerSigned(adminClaims({ nbf: nowSeconds() + 60 })),
      ],
      [
        'a demo token whose roles were changed to agent-admin, keeping its signature',
        () => {
          const [header, , signature] = demoToken.split('.');
          const claims = decodeSegment(demoToken, 1);
          claims.realm_access = { roles: ['agent-admin'] };
          return `${header}.${base64url(JSON.stringify(claims))}.${signature}`;
        },
      ],
      ['a well-signed token of type Refresh', () => issuerSigned(adminClaims({ typ: 'Refresh' }))],
      [
        'a well-signed token of type ID with the agent-api audience',
        () => issuerSigned(adminClaims({ typ: 'ID' })),
      ],
      ['a well-signed token without a type', () => issuerSigned(adminClaims({ typ: undefined }))],
    ];

    it.each(forgedTokens)(
      'refuses %s with 401 invalid_token and changes nothing',
      async (_description, forge) => {
        const token = await forge();
        expect(token).toEqual(expect.any(String));
        await expectRefusedEverywhere(service, `Bearer ${token}`, 'invalid_token');
      },
    );

    it('says that the token expired when it did', async () => {
      const now = nowSeconds();
      const token = issuerSigned(adminClaims({ iat: now - 660, exp: now - 60 }));
      const response = await service.request(tenantsPath, { token });
      expectUnauthorized(response, tenantsPath, 'invalid_token');
      expect(response.headers.get('www-authenticate')).toMatch(/expired/);
    });

    it('refuses a token the real issuer issued 11 minutes ago, and accepts one it issues now', async () => {
      moveIssuerClock(-11 * 60 * 1000);
      let old: TokenResponseBody;
      try {
        old = await passwordGrant(service.url, 'admin', 'admin');
      } finally {
        moveIssuerClock(0);
      }
      const claims = decodeSegment(old.access_token, 1);
      expect(claims.exp).toBeLessThan(nowSeconds() - 55);
      await expectRefusedEverywhere(service, `Bearer ${old.access_token}`, 'invalid_token');

      const fresh = await passwordGrant(service.url, 'admin', 'admin');
      expect((await service.request(tenantsPath, { token: fresh.access_token })).status).toBe(200);
    });
  });
});
