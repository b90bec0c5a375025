import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { calculateJwkThumbprint } from 'jose';
import { type Settings } from '../../config/settings.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { type StatusListsService } from '../status/status-lists.service.js';
import { type PresentationCheck } from '../wallet-presentation.types.js';
import { didKeyOf, walletKey, type WalletKey } from '../../../test/support/oid4vci-wallet.js';
import {
  didJwkIssuer,
  issuerMetadataOf,
  issueTestSdJwtVc,
  presentTestSdJwtVc,
  signedJwt,
  statusListTokenOf,
  testIssuer,
  type TestIssuer,
} from '../../../test/support/sd-jwt-wallet.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { RemoteTokenStatusLists } from './remote-token-status-lists.js';
import { SdJwtVcVerifier } from './sd-jwt-vc-verifier.js';

type Json = Record<string, unknown>;

const nonce = 'n-0S6_WzA2Mj';
const clientId = 'decentralized_identifier:did:key:z6MkverifierExample';

/** A loopback server answering each path from `routes` (a body, or a status), 404 otherwise. */
async function serve(
  routes: Map<string, { body?: string | Json; status?: number; type?: string }>,
) {
  const server = createServer((request, response) => {
    const route = routes.get(request.url ?? '');
    if (route === undefined) return response.writeHead(404).end();
    const body = typeof route.body === 'string' ? route.body : JSON.stringify(route.body ?? {});
    response
      .writeHead(route.status ?? 200, { 'content-type': route.type ?? 'application/json' })
      .end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('SdJwtVcVerifier', () => {
  let now = Date.now();
  let verifier: SdJwtVcVerifier;
  let holder: WalletKey;
  let didIssuer: TestIssuer;
  let server: Server;
  let origin: string;
  const routes = new Map<string, { body?: string | Json; status?: number; type?: string }>();

  beforeAll(async () => {
    ({ server, origin } = await serve(routes));
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    } as unknown as Settings;
    const keys = new CredentialIssuerKeys(settings, {} as TenantKeys, new DidResolution());
    const ours = { listOfUrl: () => undefined } as unknown as StatusListsService;
    const lists = new RemoteTokenStatusLists(settings, keys, ours, () => now);
    verifier = new SdJwtVcVerifier(keys, lists, () => now);
    holder = await walletKey('ES256');
    didIssuer = await didJwkIssuer('ES256');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    now = Date.now();
  });

  const check = (presentation: unknown, trusted?: ReadonlySet<string>) =>
    verifier.verify(
      {
        tenantId: 'acme',
        format: 'dc+sd-jwt',
        presentation,
        nonce,
        clientId,
        signal: AbortSignal.timeout(5_000),
      },
      trusted,
    );
  const failure = (result: PresentationCheck) =>
    result.verified ? 'verified' : `${result.code}: ${result.reason}`;
  const present = async (issuer: TestIssuer, options = {}, kb = {}) =>
    presentTestSdJwtVc(
      await issueTestSdJwtVc(issuer, { holder, ...options }),
      holder,
      { nonce, aud: clientId, ...kb },
      { given_name: true },
    );

  it('verifies a did:jwk issuer’s SD-JWT VC with key binding: the disclosed claims only, the holder key’s thumbprint', async () => {
    const result = await check(await present(didIssuer));
    expect(result).toEqual({
      verified: true,
      presentation: {
        format: 'dc+sd-jwt',
        issuer: didIssuer.iss,
        vct: 'https://credentials.example/identity',
        claims: {
          iss: didIssuer.iss,
          vct: 'https://credentials.example/identity',
          iat: expect.any(Number),
          given_name: 'Erika',
        },
        holderKeyThumbprint: await calculateJwkThumbprint(holder.publicJwk, 'sha256'),
        holderBinding: true,
        status: 'none',
      },
    });
  });

  it('verifies an Ed25519 issuer and holder, and a credential without cnf as unbound', async () => {
    const issuer = await didJwkIssuer('EdDSA');
    const edHolder = await walletKey('EdDSA');
    const sdJwt = await issueTestSdJwtVc(issuer, { holder: edHolder });
    const presented = await presentTestSdJwtVc(sdJwt, edHolder, { nonce, aud: clientId });
    expect(failure(await check(presented))).toBe('verified');
    const unbound = await issueTestSdJwtVc(issuer);
    const result = await check(unbound);
    expect(result).toMatchObject({
      verified: true,
      presentation: { holderBinding: false, holderKeyThumbprint: null },
    });
  });

  it('resolves a did:key issuer’s assertion key, by its DID URL or by a bare fragment', async () => {
    const key = await walletKey('EdDSA');
    const did = didKeyOf(key);
    const fragment = `#${did.slice('did:key:'.length)}`;
    for (const kid of [`${did}${fragment}`, fragment]) {
      const issuer = { key, iss: did, kid };
      expect(failure(await check(await present(issuer)))).toBe('verified');
    }
    const foreignKid = { key, iss: did, kid: `did:key:z6MkOther${fragment}` };
    expect(failure(await check(await present(foreignKid)))).toMatch(
      /^issuer_unresolved: .*not a key of the issuer's DID/,
    );
  });

  it('refuses what is not an SD-JWT VC, or exceeds the limits, as presentation_malformed', async () => {
    for (const presentation of [
      42,
      'no-tilde',
      'a.b~',
      `${'x'.repeat(70_000)}~`,
      `${'a.b.c'}${'~WyJhIiwiYiJd'.repeat(300)}~`,
      await issueTestSdJwtVc(didIssuer, { header: { typ: 'JWT' } }),
    ]) {
      expect(failure(await check(presentation))).toMatch(/^presentation_malformed: /);
    }
  });

  it('refuses an issuer outside the trusted list before resolving its key', async () => {
    const result = await check(await present(didIssuer), new Set(['did:key:z6MkOther']));
    expect(failure(result)).toMatch(/^issuer_not_trusted: the issuer 'did:jwk:.*' is not in/);
  });

  it('refuses an issuer whose key does not resolve (unknown DID method, metadata not found)', async () => {
    const unknown = await testIssuer('did:example:123', 'did:example:123#k');
    expect(failure(await check(await present(unknown)))).toMatch(
      /^issuer_unresolved: .*did:example/,
    );
    const missing = await testIssuer(`${origin}/issuers/none`);
    expect(failure(await check(await present(missing)))).toMatch(
      /^issuer_unresolved: .*answered HTTP 404/,
    );
  });

  it('refuses a signature by another key, and an unaccepted alg, as signature_invalid', async () => {
    const impostor = { ...didIssuer, key: await walletKey('ES256') };
    expect(failure(await check(await present(impostor)))).toMatch(
      /^signature_invalid: the credential's signature/,
    );
    const sdJwt = await present(didIssuer);
    const [jwt, ...rest] = sdJwt.split('~');
    const [, payload] = jwt.split('.');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'dc+sd-jwt' })).toString(
      'base64url',
    );
    expect(failure(await check([`${none}.${payload}.AA`, ...rest].join('~')))).toMatch(
      /^signature_invalid: the credential is signed with 'none'/,
    );
  });

  it('refuses a disclosure not in the payload, or presented twice, as disclosure_invalid', async () => {
    const sdJwt = await issueTestSdJwtVc(didIssuer);
    const [jwt, first] = sdJwt.split('~');
    const forged = Buffer.from(JSON.stringify(['salt', 'given_name', 'Mallory'])).toString(
      'base64url',
    );
    expect(failure(await check(`${jwt}~${forged}~`))).toBe(
      "disclosure_invalid: a disclosure's digest is not in the signed payload",
    );
    expect(failure(await check(`${jwt}~${first}~${first}~`))).toBe(
      'disclosure_invalid: the same disclosure is presented twice',
    );
  });

  it('requires a key binding JWT for a bound credential, by the cnf key, over what was presented', async () => {
    const sdJwt = await issueTestSdJwtVc(didIssuer, { holder });
    expect(failure(await check(sdJwt))).toMatch(/^key_binding_missing: /);
    const other = await walletKey('ES256');
    const byOther = await presentTestSdJwtVc(sdJwt, other, { nonce, aud: clientId });
    expect(failure(await check(byOther))).toMatch(
      /^key_binding_invalid: the key binding JWT is not signed by the credential's holder key/,
    );
    // One disclosure dropped after the KB-JWT was made: its sd_hash no longer covers the presentation.
    const full = await presentTestSdJwtVc(sdJwt, holder, { nonce, aud: clientId });
    const parts = full.split('~');
    parts.splice(1, 1);
    expect(failure(await check(parts.join('~')))).toMatch(/^key_binding_invalid: .*sd_hash/);
  });

  it('checks the key binding JWT’s nonce, audience and freshness', async () => {
    expect(failure(await check(await present(didIssuer, {}, { nonce: 'other' })))).toMatch(
      /^nonce_mismatch: /,
    );
    expect(failure(await check(await present(didIssuer, {}, { aud: 'x509_san_dns:rp' })))).toMatch(
      /^audience_mismatch: /,
    );
    const old = Math.floor(now / 1000) - 600;
    expect(failure(await check(await present(didIssuer, {}, { iat: old })))).toMatch(
      /^key_binding_stale: /,
    );
    const typ = await issueTestSdJwtVc(didIssuer, { holder });
    const [jwt, ...rest] = (await presentTestSdJwtVc(typ, holder, { nonce, aud: clientId })).split(
      '~',
    );
    const kb = await signedJwt(holder, { typ: 'JWT' }, { nonce, aud: clientId });
    expect(failure(await check([jwt, ...rest.slice(0, -1), kb].join('~')))).toMatch(
      /^key_binding_invalid: the key binding JWT's typ/,
    );
  });

  it('checks exp and nbf against the clock, with a minute of skew', async () => {
    const seconds = Math.floor(now / 1000);
    const expired = await present(didIssuer, { extra: { exp: seconds - 120 } });
    expect(failure(await check(expired))).toMatch(/^credential_expired: /);
    const early = await present(didIssuer, { extra: { nbf: seconds + 3600 } });
    expect(failure(await check(early))).toMatch(/^credential_not_yet_valid: /);
    const withinSkew = await present(didIssuer, { extra: { exp: seconds - 30 } });
    expect(failure(await check(withinSkew))).toBe('verified');
  });

  it('marks as bound only the failures after the holder’s KB-JWT verified for this request', async () => {
    const bound = async (presentation: unknown) => {
      const result = await check(presentation);
      return result.verified ? 'verified' : (result.bound ?? false);
    };
    const seconds = Math.floor(now / 1000);
    // Expired, but the holder proved it answers this request: it may end the request.
    expect(await bound(await present(didIssuer, { extra: { exp: seconds - 120 } }))).toBe(true);
    // Before or at the key binding: anyone could have sent it.
    expect(await bound(await present(didIssuer, {}, { nonce: 'other' }))).toBe(false);
    expect(await bound(await present(didIssuer, {}, { aud: 'x509_san_dns:rp' }))).toBe(false);
    expect(await bound(await issueTestSdJwtVc(didIssuer, { holder }))).toBe(false);
    const stranger = await didJwkIssuer('ES256');
    expect(await bound(await present(stranger, {}, {}))).toBe('verified');
    const untrusted = await check(await present(stranger), new Set([didIssuer.iss]));
    expect(untrusted).toMatchObject({ verified: false, code: 'issuer_not_trusted' });
    expect(untrusted).not.toHaveProperty('bound');
    // Without cnf there is no holder proof: an expired one is not bound.
    const noCnf = await issueTestSdJwtVc(didIssuer, { extra: { exp: seconds - 120 } });
    expect(await bound(noCnf)).toBe(false);
  });

  describe('an https-style issuer with JWT VC Issuer Metadata and a Token Status List', () => {
    let issuer: TestIssuer;
    let listUri: string;

    beforeAll(async () => {
      issuer = await testIssuer(`${origin}/issuers/one`);
      listUri = `${origin}/lists/1`;
      routes.set('/.well-known/jwt-vc-issuer/issuers/one', { body: issuerMetadataOf(issuer) });
      routes.set('/lists/1', {
        body: await statusListTokenOf(issuer, listUri, [0, 1, 2, 3], 2),
        type: 'application/statuslist+jwt',
      });
    });

    it('reads each status: 0 valid, 1 revoked, 2 suspended, another value refused', async () => {
      const at = async (idx: number) =>
        failure(await check(await present(issuer, { status: { idx, uri: listUri } })));
      expect(await at(0)).toBe('verified');
      expect(await at(1)).toMatch(/^credential_revoked: /);
      const revoked = await check(await present(issuer, { status: { idx: 1, uri: listUri } }));
      expect(revoked).toMatchObject({ code: 'credential_revoked', bound: true });
      expect(await at(2)).toMatch(/^credential_suspended: /);
      expect(await at(3)).toMatch(/^status_unavailable: .*status 3/);
      expect(await at(100_000)).toMatch(/^status_unavailable: .*past the list's end/);
    });

    it('refuses a list it cannot fetch, and one whose sub is not its URI, as status_unavailable', async () => {
      const gone = await present(issuer, { status: { idx: 0, uri: `${origin}/lists/gone` } });
      expect(failure(await check(gone))).toMatch(/^status_unavailable: .*answered HTTP 404/);
      routes.set('/lists/moved', {
        body: await statusListTokenOf(issuer, listUri, [0]),
        type: 'application/statuslist+jwt',
      });
      const moved = await present(issuer, { status: { idx: 0, uri: `${origin}/lists/moved` } });
      expect(failure(await check(moved))).toMatch(/^status_unavailable: .*another URI as its sub/);
    });

    it('refuses a list signed by another key', async () => {
      const impostor = { ...issuer, key: await walletKey('ES256') };
      routes.set('/lists/forged', {
        body: await statusListTokenOf(impostor, `${origin}/lists/forged`, [0]),
      });
      const forged = await present(issuer, { status: { idx: 0, uri: `${origin}/lists/forged` } });
      expect(failure(await check(forged))).toMatch(/^status_unavailable: .*not signed by/);
    });

    it('reads the keys from jwks_uri when the metadata names one', async () => {
      const byUri = await testIssuer(`${origin}/issuers/by-uri`, 'k2', 'EdDSA');
      const { jwks } = issuerMetadataOf(byUri);
      routes.set('/.well-known/jwt-vc-issuer/issuers/by-uri', {
        body: { issuer: byUri.iss, jwks_uri: `${origin}/issuers/by-uri/jwks` },
      });
      routes.set('/issuers/by-uri/jwks', { body: jwks as Json });
      expect(failure(await check(await present(byUri)))).toBe('verified');
    });

    it('refuses metadata that names another issuer', async () => {
      const liar = await testIssuer(`${origin}/issuers/liar`);
      routes.set('/.well-known/jwt-vc-issuer/issuers/liar', {
        body: { ...issuerMetadataOf(liar), issuer: `${origin}/issuers/one` },
      });
      expect(failure(await check(await present(liar)))).toMatch(
        /^issuer_unresolved: .*names another issuer/,
      );
    });
  });
});
