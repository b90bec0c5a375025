import { expectProblem } from './problems.js';
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { queryDatabase } from './database.js';
import { call, startTestService, type ApiResponse, type TestService } from './test-service.js';
import {
  tenantsPath,
  createPath,
  updatePath,
  didPath,
  type Tenant,
  type Problem,
} from './api-shapes.js';

/** What the access-token files share: token forging helpers, problem assertions and a service with the embedded issuer whose key the tests can sign with. */

/**
 * End-to-end tests of token validation and authorization over real HTTP (api.md, Authentication and
 * authorization; as Keycloak 26 signs them): tokens from the embedded issuer, tokens forged with its
 * real key or with other keys, and an external issuer whose key endpoint the tests control.
 */

export const realmPath = '/auth/realms/agent-cloud';
export const certsPath = `${realmPath}/protocol/openid-connect/certs`;
export const discoveryPath = `${realmPath}/.well-known/openid-configuration`;
export const documentPath = '/ctrl/api/v1.0/did/document';

export const bareChallenge = 'Bearer realm="agent-cloud"';
export const invalidTokenChallenge = /^Bearer realm="agent-cloud", error="invalid_token"/;

export type Claims = Record<string, unknown>;

export interface RsaJwk {
  kid: string;
  kty: string;
  alg: string;
  use: string;
  n: string;
  e: string;
}

/** An RSA key pair with the public half as the JWK an issuer would publish. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: RsaJwk;
}

export function newSigningKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  return { kid, privateKey, jwk: { kid, kty: 'RSA', alg: 'RS256', use: 'sig', n: n!, e: e! } };
}

export function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}

/** A compact JWS with exactly the header and claims given, signed by `signer` (no library checks in the way). */
export function compactJwt(
  header: Record<string, unknown>,
  claims: Claims,
  signer: (signingInput: string) => Buffer,
): string {
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${signingInput}.${signer(signingInput).toString('base64url')}`;
}

export function rs256(key: KeyObject, kid: string, claims: Claims): string {
  return compactJwt({ alg: 'RS256', typ: 'JWT', kid }, claims, (input) =>
    sign('sha256', Buffer.from(input), key),
  );
}

export function decodeSegment(token: string, index: 0 | 1): Claims {
  return JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8')) as Claims;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** 401 UNAUTHORIZED with the RFC 6750 challenge: bare when no token was sent, invalid_token otherwise. */
export function expectUnauthorized(
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
export function expectNoTokenIn(response: ApiResponse, token: string): void {
  const secrets = [token, ...token.split('.').filter((part) => part.length >= 16)];
  const headerText = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  for (const secret of secrets) {
    expect(response.text).not.toContain(secret);
    expect(headerText).not.toContain(secret);
  }
}

export async function tenantIds(service: TestService): Promise<string[]> {
  const rows = await queryDatabase<{ id: string }>(
    service.databaseUrl,
    'SELECT id FROM tenant ORDER BY id',
  );
  return rows.map((row) => row.id);
}

export async function tenantLabels(service: TestService): Promise<Record<string, string>> {
  const rows = await queryDatabase<{ id: string; label: string }>(
    service.databaseUrl,
    'SELECT id, label FROM tenant',
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.label]));
}

export async function createTenantAsAdmin(service: TestService, id: string, label: string) {
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
export async function expectRefusedEverywhere(
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

/** Registers the service's start and stop on the calling describe block. */
export function useEmbeddedIssuerService() {
  const context: {
    service: TestService;
    issuerOffsetMs: number;
    issuerKey: KeyObject;
    issuerKid: string;
    issuer: string;
    adminToken: string;
    demoToken: string;
    demoTenant: Tenant;
  } = {
    service: undefined as unknown as TestService,
    issuerOffsetMs: 0,
    issuerKey: undefined as unknown as KeyObject,
    issuerKid: undefined as unknown as string,
    issuer: undefined as unknown as string,
    adminToken: undefined as unknown as string,
    demoToken: undefined as unknown as string,
    demoTenant: undefined as unknown as Tenant,
  };
  /** Added to the issuer's clock: tests move the context.issuer in time instead of sleeping. */
  const strangerKey = newSigningKey('stranger');

  beforeAll(async () => {
    context.service = await startTestService({
      clock: () => Date.now() + context.issuerOffsetMs,
    });
    context.issuer = `${context.service.publicBaseUrl}${realmPath}`;
    context.issuerKey = createPrivateKey(
      readFileSync(join(context.service.dataDir, 'issuer', 'signing-key.pem')),
    );
    const certs = await call<{ keys: RsaJwk[] }>(context.service.url, certsPath);
    expect(certs.body.keys).toHaveLength(1);
    context.issuerKid = certs.body.keys[0].kid;
    context.adminToken = await context.service.tokenFor('admin');
    context.demoToken = await context.service.tokenFor('demo');
    context.demoTenant = await createTenantAsAdmin(context.service, 'demo', 'Demo');
    await createTenantAsAdmin(context.service, 'other', 'Other Org');
    await createTenantAsAdmin(context.service, 'orbit', 'Orbit Labs');
  });

  afterAll(async () => {
    await context.service.close();
  });

  /** The claims of a real admin access token, renewed in time, with `changes` applied (undefined deletes). */
  function adminClaims(changes: Claims = {}): Claims {
    const now = nowSeconds();
    const claims: Claims = { ...decodeSegment(context.adminToken, 1), iat: now, exp: now + 600 };
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined) delete claims[name];
      else claims[name] = value;
    }
    return claims;
  }

  function issuerSigned(claims: Claims): string {
    return rs256(context.issuerKey, context.issuerKid, claims);
  }

  function moveIssuerClock(offsetMs: number): void {
    context.issuerOffsetMs = offsetMs;
  }

  return {
    context,
    adminClaims,
    issuerSigned,
    moveIssuerClock,
    strangerKey,
  };
}
