import { jest } from '@jest/globals';
import crypto from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Settings } from '../../config/settings.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { StatusListsService } from '../status/status-lists.service.js';
import { remoteStatusListLimits } from '../verification-limits.js';
import {
  didJwkIssuer,
  issuerMetadataOf,
  statusListTokenOf,
  testIssuer,
} from '../../../test/support/sd-jwt-wallet.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { RemoteTokenStatusLists } from './remote-token-status-lists.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const listId = '0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';

/** Our status service over one fake row per list id, its base URL `origin`: what the rows were asked. */
function ownLists(origin: string, rows: Map<string, { purpose: string; bits: Buffer }>) {
  const reads: string[] = [];
  const repository = {
    byteOf: (tenantId: string, id: string, byteIndex: number) => {
      reads.push(`${tenantId}/${id}`);
      const row = rows.get(id);
      return Promise.resolve(
        row && {
          purpose: row.purpose,
          length: row.bits.length,
          byte: byteIndex < row.bits.length ? row.bits[byteIndex] : null,
        },
      );
    },
  } as unknown as ConstructorParameters<typeof StatusListsService>[1];
  const settings = { PUBLIC_BASE_URL: origin } as Settings;
  const none = undefined as never;
  const service = new StatusListsService(
    none,
    repository,
    settings,
    none,
    none,
    none,
    none,
    none,
    none,
    () => Date.now(),
  );
  return { service, reads };
}

describe('RemoteTokenStatusLists', () => {
  const routes = new Map<string, Handler>();
  const server = createServer((request, response) => {
    const handler = routes.get(request.url ?? '');
    if (handler === undefined) return response.writeHead(404).end();
    handler(request, response);
  });
  let origin = '';
  let lists: RemoteTokenStatusLists;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    } as unknown as Settings;
    const keys = new CredentialIssuerKeys(settings, {} as TenantKeys, new DidResolution());
    const ours = { listOfUrl: () => undefined } as unknown as StatusListsService;
    lists = new RemoteTokenStatusLists(settings, keys, ours, () => Date.now());
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const plenty = () => AbortSignal.timeout(5_000);

  it('lets a caller whose time ends during the shared read stop waiting, and the read serve the next caller', async () => {
    const issuer = await testIssuer(`${origin}/issuers/shared`);
    const uri = `${origin}/lists/shared`;
    const token = await statusListTokenOf(issuer, uri, [0]);
    routes.set('/lists/shared', (_request, response) => response.end(token));
    const first = new AbortController();
    let answerMetadata: () => void = () => undefined;
    routes.set('/.well-known/jwt-vc-issuer/issuers/shared', (_request, response) => {
      // The first caller's request runs out of time while the list's issuer metadata is read.
      first.abort();
      answerMetadata = () =>
        response
          .writeHead(200, { 'cache-control': 'no-store' })
          .end(JSON.stringify(issuerMetadataOf(issuer)));
    });
    expect(await lists.statusOf({ idx: 0, uri }, issuer.iss, first.signal)).toBe(
      `the status list ${uri} was not read in the time the request has`,
    );
    // Another tenant's request, with time to spare: it joins the read still under way, or reads what
    // it remembered; either way the first caller's deadline is no part of it.
    const other = lists.statusOf({ idx: 0, uri }, issuer.iss, plenty());
    answerMetadata();
    expect(await other).toBe(0);
  });

  it("reads an mdoc's list (no issuer named) with the key of the token's own iss, and refuses one without iss", async () => {
    const issuer = await didJwkIssuer();
    const uri = `${origin}/lists/mdoc`;
    const token = await statusListTokenOf(issuer, uri, [0, 1]);
    routes.set('/lists/mdoc', (_request, response) => response.end(token));
    expect(await lists.statusOf({ idx: 1, uri }, undefined, plenty())).toBe(1);
    expect(await lists.statusOf({ idx: 0, uri }, undefined, plenty())).toBe(0);
    // Remembered for the mdoc's read only: a credential naming another issuer checks the token again.
    expect(await lists.statusOf({ idx: 0, uri }, 'https://other.example', plenty())).toBe(
      `the status list ${uri} is issued by another issuer than the credential's`,
    );
    const bareUri = `${origin}/lists/mdoc-no-iss`;
    const bare = await statusListTokenOf(issuer, bareUri, [0], 1, { iss: undefined });
    routes.set('/lists/mdoc-no-iss', (_request, response) => response.end(bare));
    expect(await lists.statusOf({ idx: 0, uri: bareUri }, undefined, plenty())).toBe(
      `the status list ${bareUri} names no iss whose key could verify it`,
    );
  });

  it('refuses a Status List Token whose exp is not a number, and names an unaccepted alg by its kind', async () => {
    const issuer = await testIssuer(`${origin}/issuers/odd`);
    routes.set('/.well-known/jwt-vc-issuer/issuers/odd', (_request, response) =>
      response.end(JSON.stringify(issuerMetadataOf(issuer))),
    );
    const uri = `${origin}/lists/odd-exp`;
    const token = await statusListTokenOf(issuer, uri, [0], 1, { exp: '9999999999' });
    routes.set('/lists/odd-exp', (_request, response) => response.end(token));
    expect(await lists.statusOf({ idx: 0, uri }, issuer.iss, plenty())).toBe(
      `the status list ${uri} has an exp that is not a number`,
    );
    const algUri = `${origin}/lists/odd-alg`;
    const header = Buffer.from(
      `{"typ":"statuslist+jwt","alg":${'['.repeat(9_000)}${']'.repeat(9_000)}}`,
    );
    const [, payload, signature] = (await statusListTokenOf(issuer, algUri, [0])).split('.');
    routes.set('/lists/odd-alg', (_request, response) =>
      response.end(`${header.toString('base64url')}.${payload}.${signature}`),
    );
    expect(await lists.statusOf({ idx: 0, uri: algUri }, issuer.iss, plenty())).toBe(
      `the status list ${algUri} is signed with an array, not one of ES256, EdDSA, Ed25519`,
    );
  });

  it("reads our own list's bit from its row, never over HTTP, with the token's outcomes", async () => {
    let fetched = 0;
    const ownServer = createServer((_request, response) => {
      fetched += 1;
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => ownServer.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(ownServer.address() as AddressInfo).port}`;
    try {
      // Entry 3 revoked (index 0 is the most significant bit of the first byte).
      const rows = new Map([
        [listId, { purpose: 'revocation', bits: Buffer.from([0b0001_0000, 0]) }],
        [listId.replace('0b', '1b'), { purpose: 'suspension', bits: Buffer.from([0xff, 0]) }],
      ]);
      const { service, reads } = ownLists(base, rows);
      const settings = { statusListAllowPrivateTargets: 'loopback', PUBLIC_BASE_URL: base };
      const own = new RemoteTokenStatusLists(
        settings as unknown as Settings,
        new CredentialIssuerKeys(
          settings as unknown as Settings,
          {} as TenantKeys,
          new DidResolution(),
        ),
        service,
        () => Date.now(),
      );
      const uri = `${base}/ctrl/status-lists/acme/${listId}/token`;
      const issuer = `${base}/ctrl/oid4vci/acme`;
      const status = (idx: number, at = uri, by = issuer) =>
        own.statusOf({ idx, uri: at }, by, plenty());
      expect(await status(0)).toBe(0);
      expect(await status(3)).toBe(1);
      expect(await status(16)).toBe(
        `the status list ${uri}: the index 16 is past the list's end (16 statuses)`,
      );
      const suspension = uri.replace('0b', '1b');
      expect(await status(3, suspension)).toBe(
        `the status list ${suspension} is not a list of ours`,
      );
      const unknown = uri.replace('0b', '2b');
      expect(await status(0, unknown)).toBe(`the status list ${unknown} is not a list of ours`);
      expect(await status(0, uri, `${base}/ctrl/oid4vci/other`)).toBe(
        `the status list ${uri} is issued by another issuer than the credential's`,
      );
      const late = new AbortController();
      late.abort();
      expect(await own.statusOf({ idx: 0, uri }, issuer, late.signal)).toBe(
        `the status list ${uri} was not read in the time the request has`,
      );
      // Each answer read its row again: nothing remembered hides a revocation.
      expect(reads).toHaveLength(6);
      rows.get(listId)!.bits[0] = 0b1001_0000;
      expect(await status(0)).toBe(1);
      expect(fetched).toBe(0);
      // Not our path's shape (a query): fetched over HTTP as any other URL, as before.
      expect(await status(0, `${uri}?x`)).toBe(`the status list ${uri}?x answered HTTP 500`);
      expect([fetched, reads.length]).toEqual([1, 7]);
    } finally {
      await new Promise<void>((resolve) => ownServer.close(() => resolve()));
    }
  });

  it('fetches a list of the same path shape on another origin over HTTP, never from our rows', async () => {
    const { service, reads } = ownLists('http://localhost:1', new Map());
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    };
    const other = new RemoteTokenStatusLists(
      settings as unknown as Settings,
      new CredentialIssuerKeys(
        settings as unknown as Settings,
        {} as TenantKeys,
        new DidResolution(),
      ),
      service,
      () => Date.now(),
    );
    const issuer = await testIssuer(`${origin}/ctrl/oid4vci/acme`);
    routes.set('/.well-known/jwt-vc-issuer/ctrl/oid4vci/acme', (_request, response) =>
      response.end(JSON.stringify(issuerMetadataOf(issuer))),
    );
    const path = `/ctrl/status-lists/acme/${listId}/token`;
    const token = await statusListTokenOf(issuer, `${origin}${path}`, [0, 1]);
    routes.set(path, (_request, response) => response.end(token));
    expect(await other.statusOf({ idx: 1, uri: `${origin}${path}` }, issuer.iss, plenty())).toBe(1);
    expect(reads).toEqual([]);
  });

  it('verifies a token fetched again unchanged once, while its exp and the issuer key hold', async () => {
    let now = Date.now();
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    };
    const remote = new RemoteTokenStatusLists(
      settings as unknown as Settings,
      new CredentialIssuerKeys(
        settings as unknown as Settings,
        {} as TenantKeys,
        new DidResolution(),
      ),
      { listOfUrl: () => undefined } as unknown as StatusListsService,
      () => now,
    );
    const issuer = await testIssuer(`${origin}/issuers/memo`);
    let metadata = issuerMetadataOf(issuer);
    routes.set('/.well-known/jwt-vc-issuer/issuers/memo', (_request, response) =>
      response.writeHead(200, { 'cache-control': 'no-store' }).end(JSON.stringify(metadata)),
    );
    const uri = `${origin}/lists/memo`;
    const exp = Math.floor(now / 1000) + 600;
    // No ttl: fetched at every verification, as before.
    let token = await statusListTokenOf(issuer, uri, [0, 1], 1, { ttl: undefined, exp });
    let fetched = 0;
    routes.set('/lists/memo', (_request, response) => {
      fetched += 1;
      response.end(token);
    });
    const verify = jest.spyOn(crypto, 'verify');
    try {
      const status = (idx: number) => remote.statusOf({ idx, uri }, issuer.iss, plenty());
      expect(await status(0)).toBe(0);
      expect(await status(1)).toBe(1);
      expect(await status(0)).toBe(0);
      expect([fetched, verify.mock.calls.length]).toEqual([3, 1]);
      // Another token at the same URI (entry 0 revoked): verified and read at once.
      token = await statusListTokenOf(issuer, uri, [1, 1], 1, { ttl: undefined, exp });
      expect(await status(0)).toBe(1);
      expect([fetched, verify.mock.calls.length]).toEqual([4, 2]);
      // Past its exp the known token is refused as a new one would be, with no verification.
      const later = now;
      now = (exp + 1) * 1000;
      expect(await status(0)).toBe(`the status list ${uri} has expired`);
      expect(verify.mock.calls).toHaveLength(2);
      now = later;
      // The issuer's key replaced under the same kid: a known token is verified again, and fails.
      const keyed = `${origin}/lists/memo-key`;
      const keyedToken = await statusListTokenOf(issuer, keyed, [0], 1, { ttl: undefined, exp });
      routes.set('/lists/memo-key', (_request, response) => response.end(keyedToken));
      const keyedStatus = () => remote.statusOf({ idx: 0, uri: keyed }, issuer.iss, plenty());
      expect(await keyedStatus()).toBe(0);
      metadata = issuerMetadataOf({ ...(await testIssuer(issuer.iss)), kid: issuer.kid });
      expect(await keyedStatus()).toBe(
        `the status list ${keyed} is not signed by the credential's issuer`,
      );
      expect(verify.mock.calls).toHaveLength(4);
    } finally {
      verify.mockRestore();
    }
  });

  it("keeps verified tokens in an LRU bounded by count and by their lists' bytes", () => {
    const tokens = (lists as unknown as { tokens: { max: number; maxSize: number } }).tokens;
    expect(tokens.max).toBe(remoteStatusListLimits.remembered);
    expect(tokens.maxSize).toBeLessThanOrEqual(32 * 1024 * 1024);
  });
});
