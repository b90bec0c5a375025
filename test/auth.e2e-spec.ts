import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  sign,
  type KeyObject,
} from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryDatabase } from './support/database.js';
import {
  call,
  passwordGrant,
  postForm,
  startTestService,
  tokenPath,
  type ApiResponse,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  updatePath,
  deletePath,
  didPath,
  type Tenant,
  type TenantPage,
  type Problem,
} from './support/api-shapes.js';

/**
 * End-to-end tests of token validation and authorization over real HTTP (api.md, Authentication and
 * authorization; keycloak-compat.md, Access token): tokens from the embedded issuer, tokens forged with its
 * real key or with other keys, and an external issuer whose key endpoint the tests control.
 */

const realmPath = '/auth/realms/agent-cloud';
const certsPath = `${realmPath}/protocol/openid-connect/certs`;
const discoveryPath = `${realmPath}/.well-known/openid-configuration`;
const documentPath = '/ctrl/api/v1.0/did/document';

const bareChallenge = 'Bearer realm="agent-cloud"';
const invalidTokenChallenge = /^Bearer realm="agent-cloud", error="invalid_token"/;

type Claims = Record<string, unknown>;

interface RsaJwk {
  kid: string;
  kty: string;
  alg: string;
  use: string;
  n: string;
  e: string;
}

/** An RSA key pair with the public half as the JWK an issuer would publish. */
interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: RsaJwk;
}

function newSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  return { kid, privateKey, jwk: { kid, kty: 'RSA', alg: 'RS256', use: 'sig', n: n!, e: e! } };
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** A compact JWS with exactly the header and claims given, signed by `signer` (no library checks in the way). */
function compactJwt(
  header: Record<string, unknown>,
  claims: Claims,
  signer: (signingInput: string) => Buffer,
): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${signer(signingInput).toString('base64url')}`;
}

function rs256(key: KeyObject, kid: string, claims: Claims): string {
  return compactJwt({ alg: 'RS256', typ: 'JWT', kid }, claims, (input) =>
    sign('sha256', Buffer.from(input), key),
  );
}

function decodeSegment(token: string, index: 0 | 1): Claims {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8')) as Claims;
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** The response is a problem document (RFC 9457) with this status and code. */
function expectProblem(response: ApiResponse, status: number, code: string, path: string): Problem {
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { status, code, instance: path },
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return response.body as Problem;
}

/** 401 UNAUTHORIZED with the RFC 6750 challenge: bare when no token was sent, invalid_token otherwise. */
function expectUnauthorized(
  response: ApiResponse,
  path: string,
  challenge: 'bare' | 'invalid_token',
): Problem {
  const problem = expectProblem(response, 401, 'UNAUTHORIZED', path);
  const header = response.headers.get('www-authenticate');
  if (challenge === 'bare') expect(header).toBe(bareChallenge);
  else expect(header).toMatch(invalidTokenChallenge);
  return problem;
}

/** Neither the body nor any header of the response contains the token or one of its signed parts. */
function expectNoTokenIn(response: ApiResponse, token: string): void {
  const secrets = [token, ...token.split('.').filter((part) => part.length >= 16)];
  const headerText = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  for (const secret of secrets) {
    expect(response.text).not.toContain(secret);
    expect(headerText).not.toContain(secret);
  }
}

async function tenantIds(service: TestService): Promise<string[]> {
  const rows = await queryDatabase<{ id: string }>(
    service.databaseUrl,
    'SELECT id FROM tenant ORDER BY id',
  );
  return rows.map((row) => row.id);
}

async function tenantLabels(service: TestService): Promise<Record<string, string>> {
  const rows = await queryDatabase<{ id: string; label: string }>(
    service.databaseUrl,
    'SELECT id, label FROM tenant',
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.label]));
}

async function createTenantAsAdmin(service: TestService, id: string, label: string) {
  const response = await service.request<Tenant>(createPath, {
    method: 'POST',
    query: { id, label },
  });
  expect(response.status).toBe(201);
  return response.body;
}

let forgedTenantCounter = 0;

/**
 * Sends the credentials to create, update, list and a tenant-scoped route: each must be 401 with the
 * challenge and echo nothing of the token, and the tenant table must be exactly as before.
 */
async function expectRefusedEverywhere(
  service: TestService,
  authorization: string | undefined,
  challenge: 'bare' | 'invalid_token',
): Promise<Problem> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const before = await tenantLabels(service);
  const id = `forged-${++forgedTenantCounter}`;
  const create = await call(service.url, createPath, {
    method: 'POST',
    headers,
    query: { id, label: 'Forged' },
  });
  const problem = expectUnauthorized(create, createPath, challenge);
  const update = await call(service.url, updatePath('demo'), {
    method: 'POST',
    headers,
    query: { label: 'Taken over' },
  });
  expectUnauthorized(update, updatePath('demo'), challenge);
  const list = await call(service.url, tenantsPath, { headers });
  expectUnauthorized(list, tenantsPath, challenge);
  const did = await call(service.url, didPath, { headers: { ...headers, 'x-tenant-id': 'demo' } });
  expectUnauthorized(did, didPath, challenge);
  const token = authorization?.replace(/^\S+\s*/, '') ?? '';
  if (token !== '')
    for (const response of [create, update, list, did]) expectNoTokenIn(response, token);
  expect(await tenantLabels(service)).toEqual(before);
  return problem;
}

describe('Access tokens and authorization', () => {
  describe('with the embedded issuer', () => {
    let service: TestService;
    /** Added to the issuer's clock: tests move the issuer in time instead of sleeping. */
    let issuerOffsetMs = 0;
    let issuerKey: KeyObject;
    let issuerKid: string;
    let issuer: string;
    let adminToken: string;
    let demoToken: string;
    let demoTenant: Tenant;
    const strangerKey = newSigningKey('stranger');

    beforeAll(async () => {
      service = await startTestService({ issuerClock: () => Date.now() + issuerOffsetMs });
      issuer = `${service.publicBaseUrl}${realmPath}`;
      issuerKey = createPrivateKey(
        readFileSync(join(service.dataDir, 'issuer', 'signing-key.pem')),
      );
      const certs = await call<{ keys: RsaJwk[] }>(service.url, certsPath);
      expect(certs.body.keys).toHaveLength(1);
      issuerKid = certs.body.keys[0].kid;
      adminToken = await service.tokenFor('admin');
      demoToken = await service.tokenFor('demo');
      demoTenant = await createTenantAsAdmin(service, 'demo', 'Demo');
      await createTenantAsAdmin(service, 'other', 'Other Org');
      await createTenantAsAdmin(service, 'orbit', 'Orbit Labs');
    });

    afterAll(async () => {
      await service.close();
    });

    /** The claims of a real admin access token, renewed in time, with `changes` applied (undefined deletes). */
    function adminClaims(changes: Claims = {}): Claims {
      const now = nowSeconds();
      const claims: Claims = { ...decodeSegment(adminToken, 1), iat: now, exp: now + 600 };
      for (const [name, value] of Object.entries(changes)) {
        if (value === undefined) delete claims[name];
        else claims[name] = value;
      }
      return claims;
    }

    function issuerSigned(claims: Claims): string {
      return rs256(issuerKey, issuerKid, claims);
    }

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
            return compactJwt(
              { alg: 'HS256', typ: 'JWT', kid: issuerKid },
              adminClaims(),
              (input) => createHmac('sha256', pem).update(input).digest(),
            );
          },
        ],
        [
          'an HS256 token whose secret is the modulus of the published JWK',
          async () => {
            const certs = await call<{ keys: RsaJwk[] }>(service.url, certsPath);
            const modulus = Buffer.from(certs.body.keys[0].n, 'base64url');
            return compactJwt(
              { alg: 'HS256', typ: 'JWT', kid: issuerKid },
              adminClaims(),
              (input) => createHmac('sha256', modulus).update(input).digest(),
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
        [
          'a well-signed token of type Refresh',
          () => issuerSigned(adminClaims({ typ: 'Refresh' })),
        ],
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
        issuerOffsetMs = -11 * 60 * 1000;
        let old: TokenResponseBody;
        try {
          old = await passwordGrant(service.url, 'admin', 'admin');
        } finally {
          issuerOffsetMs = 0;
        }
        const claims = decodeSegment(old.access_token, 1);
        expect(claims.exp).toBeLessThan(nowSeconds() - 55);
        await expectRefusedEverywhere(service, `Bearer ${old.access_token}`, 'invalid_token');

        const fresh = await passwordGrant(service.url, 'admin', 'admin');
        expect((await service.request(tenantsPath, { token: fresh.access_token })).status).toBe(
          200,
        );
      });
    });

    describe('the order of the checks', () => {
      it('answers 401, not 400, to a tenant-scoped request with neither token nor tenant header', async () => {
        expectUnauthorized(await service.request(didPath, { as: 'anonymous' }), didPath, 'bare');
        expectUnauthorized(
          await service.request(documentPath, { token: 'garbage' }),
          documentPath,
          'invalid_token',
        );
      });

      it('answers 400, not 403, to an agent-user that sends no tenant header or a malformed one', async () => {
        expectProblem(
          await service.request(didPath, { as: 'demo' }),
          400,
          'TENANT_HEADER_MISSING',
          didPath,
        );
        expectProblem(
          await service.request(didPath, {
            as: 'demo',
            headers: { 'x-tenant-id': 'not a tenant!' },
          }),
          400,
          'TENANT_HEADER_INVALID',
          didPath,
        );
      });

      it('answers 401, not 403, to an invalid token on an admin route', async () => {
        const tampered = issuerSigned(adminClaims()).slice(0, -4) + 'AAAA';
        expectUnauthorized(
          await service.request(createPath, {
            method: 'POST',
            token: tampered,
            query: { id: 'nope', label: 'Nope' },
          }),
          createPath,
          'invalid_token',
        );
      });

      it('serves the public routes without a token, and with a broken one', async () => {
        for (const path of [
          '/ctrl/health/live',
          '/ctrl/health/ready',
          '/ctrl/v3/api-docs',
          discoveryPath,
          certsPath,
        ]) {
          expect({
            path,
            status: (await service.request(path, { as: 'anonymous' })).status,
          }).toEqual({ path, status: 200 });
          expect({
            path,
            status: (await service.request(path, { token: 'garbage' })).status,
          }).toEqual({ path, status: 200 });
        }
        const discovery = await service.request<{ issuer: string }>(discoveryPath, {
          as: 'anonymous',
        });
        expect(discovery.body.issuer).toBe(issuer);
      });
    });

    describe('an administrator', () => {
      it('creates, reads, lists, updates and deletes any tenant', async () => {
        const created = await service.request<Tenant>(createPath, {
          method: 'POST',
          query: { id: 'admin-made', label: 'Admin made' },
        });
        expect(created.status).toBe(201);
        const read = await service.request<Tenant>(tenantPath('admin-made'));
        expect(read.body).toMatchObject({ id: 'admin-made', label: 'Admin made' });
        const list = await service.request<TenantPage>(tenantsPath, { query: { size: '100' } });
        expect(list.body.content.map((tenant) => tenant.id)).toEqual(
          expect.arrayContaining(['admin-made', 'demo', 'other', 'orbit']),
        );
        const updated = await service.request<Tenant>(updatePath('admin-made'), {
          method: 'POST',
          query: { label: 'Renamed' },
        });
        expect(updated.status).toBe(200);
        expect((await tenantLabels(service))['admin-made']).toBe('Renamed');
        expect((await service.request(deletePath('admin-made'), { method: 'POST' })).status).toBe(
          204,
        );
        expect(await tenantIds(service)).not.toContain('admin-made');
      });

      it('acts for any tenant, and gets 404 for a tenant that does not exist', async () => {
        for (const tenant of ['demo', 'other']) {
          const did = await service.request<{ id: string }>(didPath, {
            headers: { 'x-tenant-id': tenant },
          });
          expect(did.status).toBe(200);
          const document = await service.request<{ id: string }>(documentPath, {
            headers: { 'x-tenant-id': tenant },
          });
          expect(document.status).toBe(200);
          expect(document.body.id).toBe(did.body.id);
        }
        expectProblem(
          await service.request(didPath, { headers: { 'x-tenant-id': 'ghost' } }),
          404,
          'TENANT_NOT_FOUND',
          didPath,
        );
      });
    });

    describe('an agent-user (demo, tenant_ids [demo])', () => {
      it('reads the DID and DID document of its own tenant', async () => {
        const did = await service.request<{ id: string }>(didPath, {
          as: 'demo',
          headers: { 'x-tenant-id': 'demo' },
        });
        expect(did.status).toBe(200);
        expect(did.body.id).toBe(demoTenant.did);
        const document = await service.request<{ id: string }>(documentPath, {
          as: 'demo',
          headers: { 'x-tenant-id': 'demo' },
        });
        expect(document.status).toBe(200);
        expect(document.body.id).toBe(demoTenant.did);
      });

      it('gets the same 403 for another existing tenant as for one that does not exist', async () => {
        for (const path of [didPath, documentPath]) {
          const existing = await service.request<Problem>(path, {
            as: 'demo',
            headers: { 'x-tenant-id': 'other' },
          });
          const missing = await service.request<Problem>(path, {
            as: 'demo',
            headers: { 'x-tenant-id': 'ghost' },
          });
          expectProblem(existing, 403, 'FORBIDDEN', path);
          expectProblem(missing, 403, 'FORBIDDEN', path);
          expect(missing.body).toEqual({
            ...existing.body,
            detail: existing.body.detail.replaceAll('other', 'ghost'),
          });
          expect([...missing.headers.keys()].sort()).toEqual([...existing.headers.keys()].sort());
        }
      });

      it('lists only its own tenant, however the list is searched or paged', async () => {
        const all = await service.request<TenantPage>(tenantsPath, { as: 'demo' });
        expect(all.status).toBe(200);
        expect(all.body).toMatchObject({ totalElements: 1, totalPages: 1 });
        expect(all.body.content.map((tenant) => tenant.id)).toEqual(['demo']);

        const searched = await service.request<TenantPage>(tenantsPath, {
          as: 'demo',
          query: { q: 'o' },
        });
        expect(searched.body.totalElements).toBe(1);
        expect(searched.body.content.map((tenant) => tenant.id)).toEqual(['demo']);

        const othersOnly = await service.request<TenantPage>(tenantsPath, {
          as: 'demo',
          query: { q: 'other' },
        });
        expect(othersOnly.body).toMatchObject({ content: [], totalElements: 0 });

        const secondPage = await service.request<TenantPage>(tenantsPath, {
          as: 'demo',
          query: { page: '1', size: '1' },
        });
        expect(secondPage.body).toMatchObject({ content: [], totalElements: 1, totalPages: 1 });

        const asAdmin = await service.request<TenantPage>(tenantsPath, { query: { q: 'o' } });
        expect(asAdmin.body.totalElements).toBeGreaterThanOrEqual(3);
      });

      it('reads its own tenant and gets 403 for any other, existing or not', async () => {
        const own = await service.request<Tenant>(tenantPath('demo'), { as: 'demo' });
        expect(own.status).toBe(200);
        expect(own.body.id).toBe('demo');
        const other = await service.request<Problem>(tenantPath('other'), { as: 'demo' });
        const ghost = await service.request<Problem>(tenantPath('ghost'), { as: 'demo' });
        expectProblem(other, 403, 'FORBIDDEN', tenantPath('other'));
        expectProblem(ghost, 403, 'FORBIDDEN', tenantPath('ghost'));
        expect(ghost.body.detail).toBe(other.body.detail.replaceAll('other', 'ghost'));
      });

      it('cannot create, update or delete tenants, its own included, and nothing changes', async () => {
        const before = await tenantLabels(service);
        const attempts: [string, Record<string, string>][] = [
          [createPath, { id: 'sneaky', label: 'Sneaky' }],
          [updatePath('demo'), { label: 'Renamed by demo' }],
          [updatePath('other'), { label: 'Renamed by demo' }],
          [deletePath('demo'), {}],
          [deletePath('other'), {}],
        ];
        for (const [path, query] of attempts) {
          const response = await service.request(path, { as: 'demo', method: 'POST', query });
          expectProblem(response, 403, 'FORBIDDEN', path);
        }
        expect(await tenantLabels(service)).toEqual(before);
      });
    });

    describe('a service account (client_credentials of agent-service)', () => {
      it('acts as an administrator', async () => {
        const grant = await postForm(service.url, tokenPath, {
          grant_type: 'client_credentials',
          client_id: 'agent-service',
          client_secret: 'change-me',
        });
        expect(grant.status).toBe(200);
        const token = (grant.body as TokenResponseBody).access_token;
        const created = await service.request<Tenant>(createPath, {
          method: 'POST',
          token,
          query: { id: 'machine-made', label: 'Machine made' },
        });
        expect(created.status).toBe(201);
        expect(
          (
            await service.request(updatePath('machine-made'), {
              method: 'POST',
              token,
              query: { label: 'Machine renamed' },
            })
          ).status,
        ).toBe(200);
        const list = await service.request<TenantPage>(tenantsPath, {
          token,
          query: { size: '100' },
        });
        expect(list.body.content.map((tenant) => tenant.id)).toEqual(
          expect.arrayContaining(['demo', 'other', 'machine-made']),
        );
        const did = await service.request<{ id: string }>(didPath, {
          token,
          headers: { 'x-tenant-id': 'other' },
        });
        expect(did.status).toBe(200);
        expect(
          (await service.request(deletePath('machine-made'), { method: 'POST', token })).status,
        ).toBe(204);
        expect(await tenantIds(service)).not.toContain('machine-made');
      });
    });

    describe("the issuer's own check of its tokens", () => {
      it('answers userinfo for an access token it issued, and refuses a forged one', async () => {
        const userinfoPath = `${realmPath}/protocol/openid-connect/userinfo`;
        const info = await service.request<Claims>(userinfoPath, { as: 'demo' });
        expect({ status: info.status, body: info.body }).toMatchObject({
          status: 200,
          body: { preferred_username: 'demo', tenant_ids: ['demo'] },
        });
        const forged = await service.request(userinfoPath, {
          token: rs256(strangerKey.privateKey, issuerKid, decodeSegment(demoToken, 1)),
        });
        expect(forged.status).toBe(401);
      });
    });

    describe('tokens in responses', () => {
      it('never appear in a response body or header, whatever the outcome', async () => {
        const expired = issuerSigned(
          adminClaims({ iat: nowSeconds() - 660, exp: nowSeconds() - 60 }),
        );
        const wrongAudience = issuerSigned(adminClaims({ aud: 'account' }));
        const checks: [string, ApiResponse][] = [
          [adminToken, await service.request(tenantsPath)],
          [adminToken, await service.request(tenantsPath, { query: { size: '1000' } })],
          [adminToken, await service.request(tenantsPath, { query: { access_token: adminToken } })],
          [adminToken, await service.request(didPath, { headers: { 'x-tenant-id': 'ghost' } })],
          [adminToken, await service.request(didPath, { headers: { 'x-tenant-id': 'bad id!' } })],
          [adminToken, await service.request('/ctrl/api/v1.0/nowhere')],
          [adminToken, await service.request(tenantsPath, { method: 'DELETE' })],
          [
            adminToken,
            await service.request(createPath, {
              method: 'POST',
              body: '{"id": ',
            }),
          ],
          [demoToken, await service.request(tenantPath('other'), { as: 'demo' })],
          [demoToken, await service.request(didPath, { as: 'demo' })],
          [expired, await service.request(tenantsPath, { token: expired })],
          [wrongAudience, await service.request(tenantsPath, { token: wrongAudience })],
        ];
        for (const [token, response] of checks) {
          expect(response.status).toBeGreaterThanOrEqual(200);
          expectNoTokenIn(response, token);
        }
        expect(checks.map(([, response]) => response.status)).toEqual([
          200, 400, 400, 404, 400, 404, 405, 400, 403, 400, 401, 401,
        ]);
      });
    });
  });

  describe('a user with neither agent-admin nor agent-user', () => {
    let service: TestService;

    beforeAll(async () => {
      const realm = JSON.parse(
        readFileSync(new URL('../keycloak/agent-cloud-realm.json', import.meta.url), 'utf8'),
      ) as { users: Record<string, unknown>[] };
      realm.users.push({
        username: 'norole',
        enabled: true,
        email: 'norole@agent-cloud.local',
        emailVerified: true,
        firstName: 'No',
        lastName: 'Role',
        credentials: [{ type: 'password', value: 'norole', temporary: false }],
        realmRoles: ['default-roles-agent-cloud'],
      });
      const realmFile = join(mkdtempSync(join(tmpdir(), 'agent-realm-')), 'realm.json');
      writeFileSync(realmFile, JSON.stringify(realm));
      service = await startTestService({ env: { AUTH_REALM_FILE: realmFile } });
      await createTenantAsAdmin(service, 'demo', 'Demo');
    });

    afterAll(async () => {
      await service.close();
    });

    it('gets 403 on every route that is not public, before any tenant check, and changes nothing', async () => {
      const { access_token: token } = await passwordGrant(service.url, 'norole', 'norole');
      expect(decodeSegment(token, 1).realm_access).toEqual({
        roles: expect.not.arrayContaining(['agent-admin', 'agent-user']) as unknown,
      });
      const before = await tenantLabels(service);
      const attempts: [string, string, Record<string, string>, Record<string, string>][] = [
        ['GET', tenantsPath, {}, {}],
        ['GET', tenantPath('demo'), {}, {}],
        ['GET', didPath, { 'x-tenant-id': 'demo' }, {}],
        ['GET', documentPath, { 'x-tenant-id': 'demo' }, {}],
        ['GET', didPath, {}, {}],
        ['POST', createPath, {}, { id: 'nobody', label: 'Nobody' }],
        ['POST', updatePath('demo'), {}, { label: 'Renamed' }],
        ['POST', deletePath('demo'), {}, {}],
      ];
      for (const [method, path, headers, query] of attempts) {
        const response = await service.request(path, { method, token, headers, query });
        expectProblem(response, 403, 'FORBIDDEN', path);
      }
      expect(await tenantLabels(service)).toEqual(before);
      expect((await service.request('/ctrl/health/live', { token })).status).toBe(200);
    });
  });

  describe('with an external issuer', () => {
    const externalIssuer = 'https://issuer.test/auth/realms/agent-cloud';
    const firstKey = newSigningKey('first-key');
    const rotatedKey = newSigningKey('rotated-key');

    /** The issuer's key endpoint, under the test's control: what it publishes, whether it answers. */
    class JwksServer {
      fetches = 0;
      published: RsaJwk[] = [];
      failWithStatus: number | undefined;
      private server: Server | undefined;
      private port = 0;

      get url(): string {
        return `http://127.0.0.1:${this.port}/certs`;
      }

      async start(): Promise<void> {
        const server = createServer((request, response) => {
          if (request.url !== '/certs') {
            response.writeHead(404).end();
            return;
          }
          this.fetches += 1;
          if (this.failWithStatus !== undefined) {
            response.writeHead(this.failWithStatus, { 'content-type': 'text/plain' }).end('down');
            return;
          }
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ keys: this.published }));
        });
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(this.port, '127.0.0.1', () => resolve());
        });
        this.port = (server.address() as AddressInfo).port;
        this.server = server;
      }

      async stop(): Promise<void> {
        const server = this.server;
        if (server === undefined) return;
        this.server = undefined;
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }

    let jwks: JwksServer;
    let service: TestService | undefined;

    async function startWithExternalIssuer(): Promise<TestService> {
      jwks = new JwksServer();
      jwks.published = [firstKey.jwk];
      await jwks.start();
      service = await startTestService({
        env: { AUTH_ISSUER_URL: externalIssuer, AUTH_JWKS_URL: jwks.url },
      });
      return service;
    }

    afterEach(async () => {
      await service?.close();
      service = undefined;
      await jwks.stop();
    });

    function externalToken(key: SigningKey, kid = key.kid, changes: Claims = {}): string {
      const now = nowSeconds();
      return rs256(key.privateKey, kid, {
        exp: now + 600,
        iat: now,
        jti: `onrtro:${randomUUID()}`,
        iss: externalIssuer,
        aud: ['agent-api'],
        sub: randomUUID(),
        typ: 'Bearer',
        azp: 'agent-client',
        realm_access: { roles: ['agent-admin'] },
        scope: 'email profile',
        preferred_username: 'external-admin',
        ...changes,
      });
    }

    it('fetches the signing keys once and then answers from its cache', async () => {
      const running = await startWithExternalIssuer();
      expect(jwks.fetches).toBe(0);
      const created = await running.request(createPath, {
        method: 'POST',
        token: externalToken(firstKey),
        query: { id: 'external', label: 'External' },
      });
      expect(created.status).toBe(201);
      expect(jwks.fetches).toBe(1);
      for (let call = 0; call < 5; call += 1) {
        const response = await running.request(tenantsPath, { token: externalToken(firstKey) });
        expect(response.status).toBe(200);
      }
      expect(jwks.fetches).toBe(1);
    });

    it('refuses a token that names another algorithm than RS256, or carries no claims, without fetching the keys for it', async () => {
      const running = await startWithExternalIssuer();
      const claims = decodeSegment(externalToken(firstKey), 1);
      const forged = [
        compactJwt({ alg: 'HS256', typ: 'JWT', kid: 'unknown-kid' }, claims, (input) =>
          createHmac('sha256', 'guess').update(input).digest(),
        ),
        compactJwt({ alg: 'ES256', typ: 'JWT', kid: 'unknown-kid' }, claims, () =>
          Buffer.alloc(64, 1),
        ),
        compactJwt({ alg: 'none', typ: 'JWT', kid: firstKey.kid }, claims, () => Buffer.alloc(0)),
      ];
      // RS256 and a kid the service has never seen, but a payload that is no JSON object.
      const header = Buffer.from(
        JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'unknown-kid' }),
      ).toString('base64url');
      for (const payload of ['not json', '"a string"', '[1,2]'])
        forged.push(
          `${header}.${Buffer.from(payload).toString('base64url')}.${Buffer.alloc(256, 7).toString('base64url')}`,
        );
      for (const token of forged) {
        expectUnauthorized(
          await running.request(tenantsPath, { token }),
          tenantsPath,
          'invalid_token',
        );
      }
      expect(jwks.fetches).toBe(0);
    });

    it('keeps accepting tokens of a cached key while the key endpoint is down', async () => {
      const running = await startWithExternalIssuer();
      expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
        200,
      );
      await jwks.stop();
      expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
        200,
      );
    });

    it('refetches exactly once when a token names a key the issuer has just published', async () => {
      const running = await startWithExternalIssuer();
      expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
        200,
      );
      expect(jwks.fetches).toBe(1);

      jwks.published = [firstKey.jwk, rotatedKey.jwk];
      const rotated = await running.request(tenantsPath, { token: externalToken(rotatedKey) });
      expect(rotated.status).toBe(200);
      expect(jwks.fetches).toBe(2);
      for (const key of [rotatedKey, firstKey, rotatedKey]) {
        expect((await running.request(tenantsPath, { token: externalToken(key) })).status).toBe(
          200,
        );
      }
      expect(jwks.fetches).toBe(2);
    });

    it('refuses tokens of the right key with the wrong issuer or audience', async () => {
      const running = await startWithExternalIssuer();
      for (const changes of [
        { iss: `${running.publicBaseUrl}${realmPath}` },
        { iss: `${externalIssuer}/` },
        { aud: ['account'] },
      ]) {
        const response = await running.request(tenantsPath, {
          token: externalToken(firstKey, firstKey.kid, changes),
        });
        expectUnauthorized(response, tenantsPath, 'invalid_token');
      }
    });

    it('fetches at most 10 times a minute under a flood of unknown key ids, refusing them all, and keeps serving known keys', async () => {
      const running = await startWithExternalIssuer();
      expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
        200,
      );
      const before = await tenantIds(running);
      const flood = await Promise.all(
        Array.from({ length: 40 }, (_unused, index) =>
          running.request(createPath, {
            method: 'POST',
            token: externalToken(firstKey, `unknown-${index}-${randomUUID()}`),
            query: { id: `flood-${index}`, label: 'Flood' },
          }),
        ),
      );
      for (const response of flood) expectUnauthorized(response, createPath, 'invalid_token');
      expect(jwks.fetches).toBeGreaterThan(1);
      expect(jwks.fetches).toBeLessThanOrEqual(10);
      expect(await tenantIds(running)).toEqual(before);

      const fetchesAfterFlood = jwks.fetches;
      expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
        200,
      );
      expect(jwks.fetches).toBe(fetchesAfterFlood);
    });

    it('answers 503 with Retry-After while the key endpoint is unreachable, and recovers when it returns', async () => {
      const running = await startWithExternalIssuer();
      await jwks.stop();
      const before = await tenantIds(running);
      const refused = await running.request(createPath, {
        method: 'POST',
        token: externalToken(firstKey),
        query: { id: 'during-outage', label: 'During outage' },
      });
      expectProblem(refused, 503, 'SERVICE_UNAVAILABLE', createPath);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await tenantIds(running)).toEqual(before);

      await jwks.start();
      const created = await running.request(createPath, {
        method: 'POST',
        token: externalToken(firstKey),
        query: { id: 'after-outage', label: 'After outage' },
      });
      expect(created.status).toBe(201);
    });

    it('keeps answering 503, not 401, to every valid token for as long as the key endpoint is unreachable', async () => {
      const running = await startWithExternalIssuer();
      await jwks.stop();
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 12; attempt += 1) {
        statuses.push(
          (await running.request(tenantsPath, { token: externalToken(firstKey) })).status,
        );
      }
      expect(statuses).toEqual(Array.from({ length: 12 }, () => 503));
    });

    it('answers 503, not 401, when the key endpoint fails with a server error', async () => {
      const running = await startWithExternalIssuer();
      jwks.failWithStatus = 502;
      const response = await running.request(tenantsPath, { token: externalToken(firstKey) });
      expectProblem(response, 503, 'SERVICE_UNAVAILABLE', tenantsPath);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('does not serve the embedded issuer', async () => {
      const running = await startWithExternalIssuer();
      for (const path of [discoveryPath, certsPath]) {
        expectProblem(
          await running.request(path, { as: 'anonymous' }),
          404,
          'ROUTE_NOT_FOUND',
          path,
        );
      }
      const grant = await postForm(running.url, tokenPath, {
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      });
      expectProblem(grant, 404, 'ROUTE_NOT_FOUND', tokenPath);
      expect(jwks.fetches).toBe(0);
    });
  });
});
