import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { alumniCredential, issue, makeHolder } from './support/credentials-harness.js';
import { answerRequest, disclose, resolveRequest } from './support/oid4vp-holder.js';
import { thumbprintOf, walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  issuerMetadataOf,
  issueTestSdJwtVc,
  presentTestSdJwtVc,
  statusListTokenOf,
  testIssuer,
  type TestIssuer,
} from './support/sd-jwt-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

const identity = 'https://credentials.example/identity';
const diploma = 'https://credentials.example/diploma';
const alumniTypes = ['VerifiableCredential', 'AlumniCredential'];

const identityQuery = (extra: Json = {}) => ({
  id: 'identity',
  format: 'dc+sd-jwt',
  meta: { vct_values: [identity] },
  claims: [{ path: ['given_name'] }],
  ...extra,
});
const alumniQuery = {
  id: 'alumni',
  format: 'ldp_vc',
  meta: { type_values: [alumniTypes] },
  claims: [{ path: ['credentialSubject', 'alumniOf'] }],
};

/**
 * The whole OpenID4VP flow for what the wallet spec does not cover: the requests API opens the
 * request, OWF's wallet library resolves its link and fetches the signed request object, answers at
 * the response endpoint, and the API reads the outcome. SD-JWT VCs of a foreign issuer whose JWT VC
 * Issuer Metadata and Token Status List a loopback server publishes, a Data Integrity presentation of
 * a credential another tenant issued, several credential queries, claim and credential sets, holder
 * binding.
 */
describe('OpenID4VP presentations, end to end through the API', () => {
  let service: TestService;
  let foreign: Server;
  let statusUri: string;
  let foreignIssuer: TestIssuer;
  let univIssuer: string;
  const routes = new Map<string, string>();

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    // What local mode allows by default: plain http to loopback, where the foreign issuer listens.
    service = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    for (const id of ['univ', 'shop', 'strict'])
      await service.client().createTenant({ id, label: id });
    univIssuer = `${service.publicBaseUrl}/ctrl/oid4vci/univ`;
    const trusted = await service.request('/ctrl/api/v1.0/trusted-issuers/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'strict' },
      body: { issuer: univIssuer },
    });
    expect(trusted.status).toBe(201);

    foreign = createServer((request, response) => {
      const body = routes.get(request.url ?? '');
      if (body === undefined) return response.writeHead(404).end();
      response.writeHead(200, { 'cache-control': 'max-age=60' }).end(body);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
    foreignIssuer = await testIssuer(`${origin}/issuer`);
    statusUri = `${origin}/status/1`;
    routes.set(
      '/.well-known/jwt-vc-issuer/issuer',
      JSON.stringify(issuerMetadataOf(foreignIssuer)),
    );
    // Index 0 valid, index 1 revoked.
    routes.set('/status/1', await statusListTokenOf(foreignIssuer, statusUri, [0, 1]));
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await new Promise<void>((resolve) => foreign.close(() => resolve()));
    await service.close();
  });

  interface Opened {
    id: string;
    tenantId: string;
    resolved: ResolvedOpenid4vpAuthorizationRequest;
    nonce: string;
    clientId: string;
  }

  /** The API opens the request; the wallet library resolves its link (signed request object). */
  async function open(dcqlQuery: Json, options: Json = {}, tenantId = 'shop'): Promise<Opened> {
    const created = await service.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      // The wallet here verifies request objects through the DID alone.
      body: { dcqlQuery, clientIdPrefix: 'decentralized_identifier', ...options },
    });
    expect(created.status).toBe(201);
    const resolved = await resolveRequest(created.body.authorizationRequestUri as string);
    expect(resolved.dcql?.query).toMatchObject(dcqlQuery);
    const payload = resolved.authorizationRequestPayload;
    return {
      id: created.body.id as string,
      tenantId,
      resolved,
      nonce: payload.nonce,
      clientId: payload.client_id!,
    };
  }

  /** The wallet library answers at the response endpoint: the status and the body it got. */
  async function answer(request: Opened, vpToken: Record<string, (string | Json)[]>) {
    const response = await answerRequest(request.resolved, vpToken);
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** The request as the API reads it. */
  async function read(request: Opened): Promise<Json> {
    const response = await service.request<Json>(`/ctrl/api/v1.0/oid4vp/requests/${request.id}`, {
      headers: { 'x-tenant-id': request.tenantId },
    });
    expect(response.status).toBe(200);
    return response.body;
  }

  /** Answers, expects the request failed with `code`; a second, valid answer then changes nothing. */
  async function expectFailure(
    request: Opened,
    vpToken: Record<string, (string | Json)[]>,
    code: string,
    retry: Record<string, (string | Json)[]>,
  ): Promise<string> {
    const failed = await answer(request, vpToken);
    expect(failed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    const after = await read(request);
    expect(after).toMatchObject({ status: 'failed', outcome: { code } });
    expect(after).not.toHaveProperty('presented');
    const reason = (after.outcome as { reason: string }).reason;
    expect(failed.body.error_description).toBe(reason);
    const again = await answer(request, retry);
    expect(again.status).toBe(400);
    expect(await read(request)).toEqual(after);
    return reason;
  }

  /**
   * Answers with what is not bound to the request (checks before the holder's proof failed): refused
   * with the reason, the request still pending; answers the reason.
   */
  async function expectRefusal(
    request: Opened,
    vpToken: Record<string, (string | Json)[]>,
  ): Promise<string> {
    const refused = await answer(request, vpToken);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await read(request)).toMatchObject({ status: 'pending' });
    return refused.body.error_description as string;
  }

  /** A foreign SD-JWT VC, bound to `holder` unless null, with status index `idx` of the list. */
  const foreignCredential = (
    holder: WalletKey | null,
    options: { idx?: number; vct?: string; claims?: Json } = {},
  ) =>
    issueTestSdJwtVc(foreignIssuer, {
      ...(holder === null ? {} : { holder }),
      status: { idx: options.idx ?? 0, uri: statusUri },
      extra: { vct: options.vct ?? identity },
      ...(options.claims === undefined ? {} : { claims: options.claims }),
    });

  /** What the wallet presents to `request`: the disclosures of `frame` and its key binding. */
  const present = (request: Opened, credential: string, holder: WalletKey, frame?: Json) =>
    presentTestSdJwtVc(credential, holder, { nonce: request.nonce, aud: request.clientId }, frame);

  /** A Data Integrity credential by the univ tenant (POST /credentials/issue) to a new holder DID. */
  async function alumni() {
    const holder = makeHolder();
    const issued = await issue(
      service,
      'univ',
      alumniCredential({ credentialSubject: { id: holder.did, alumniOf: 'Examples' } }),
    );
    expect(issued.status).toBe(201);
    return { holder, credential: issued.body.verifiableCredential };
  }

  describe('a foreign issuer (JWT VC Issuer Metadata and status list on loopback)', () => {
    it('is verified when the request trusts it, and the outcome names it', async () => {
      const holder = await walletKey('ES256');
      const credential = await foreignCredential(holder);
      const request = await open(
        { credentials: [identityQuery()] },
        { trustedIssuers: [foreignIssuer.iss] },
      );
      const answered = await answer(request, {
        identity: [await present(request, credential, holder, { given_name: true })],
      });
      expect(answered).toEqual({ status: 200, body: {} });
      const read_ = await read(request);
      expect(read_).toMatchObject({ status: 'verified', trustedIssuers: [foreignIssuer.iss] });
      expect(read_.presented).toEqual({
        identity: [
          {
            format: 'dc+sd-jwt',
            issuer: foreignIssuer.iss,
            vct: identity,
            holderKeyThumbprint: await thumbprintOf(holder),
            status: 'valid',
            claims: { given_name: 'Erika' },
          },
        ],
      });
      expect(read_).not.toHaveProperty('outcome');
    });

    // An untrusted issuer's credential binds nothing: anyone can make one, so it is refused, not final.
    it('refuses issuer_not_trusted when the request trusts only another issuer', async () => {
      const holder = await walletKey('ES256');
      const credential = await foreignCredential(holder);
      const request = await open(
        { credentials: [identityQuery()] },
        { trustedIssuers: [univIssuer] },
      );
      const presentation = await present(request, credential, holder);
      const reason = await expectRefusal(request, { identity: [presentation] });
      expect(reason).toBe(
        `identity: the issuer '${foreignIssuer.iss}' is not in the trusted issuers list`,
      );
    });

    it('refuses issuer_not_trusted by the tenant’s own list when the request names none; the request’s list wins', async () => {
      const holder = await walletKey('ES256');
      const credential = await foreignCredential(holder);
      const request = await open({ credentials: [identityQuery()] }, {}, 'strict');
      expect(await read(request)).toMatchObject({ trustedIssuers: null });
      const presentation = await present(request, credential, holder);
      expect(await expectRefusal(request, { identity: [presentation] })).toMatch(
        /is not in the trusted issuers list/,
      );

      const named = await open(
        { credentials: [identityQuery()] },
        { trustedIssuers: [foreignIssuer.iss] },
        'strict',
      );
      const answered = await answer(named, {
        identity: [await present(named, credential, holder)],
      });
      expect(answered.status).toBe(200);
      expect(await read(named)).toMatchObject({
        status: 'verified',
        presented: { identity: [{ issuer: foreignIssuer.iss }] },
      });
    });

    it('sees an issuer the tenant trusts from now on at the next answer to the same request', async () => {
      const holder = await walletKey('ES256');
      const credential = await foreignCredential(holder);
      const request = await open({ credentials: [identityQuery()] }, {}, 'strict');
      expect(
        await expectRefusal(request, { identity: [await present(request, credential, holder)] }),
      ).toMatch(/is not in the trusted issuers list/);
      const added = await service.request<{ id: string }>('/ctrl/api/v1.0/trusted-issuers/create', {
        method: 'POST',
        headers: { 'x-tenant-id': 'strict' },
        body: { issuer: foreignIssuer.iss },
      });
      expect(added.status).toBe(201);
      try {
        const answered = await answer(request, {
          identity: [await present(request, credential, holder)],
        });
        expect(answered.status).toBe(200);
        expect(await read(request)).toMatchObject({ status: 'verified', refusedAnswers: 1 });
      } finally {
        const removed = await service.request(
          `/ctrl/api/v1.0/trusted-issuers/${added.body.id}/delete`,
          { method: 'POST', headers: { 'x-tenant-id': 'strict' } },
        );
        expect(removed.status).toBe(204);
      }
    });

    it('fails credential_revoked for a credential revoked at the foreign status list', async () => {
      const holder = await walletKey('EdDSA');
      const revoked = await foreignCredential(holder, { idx: 1 });
      const request = await open({ credentials: [identityQuery()] });
      const presentation = await present(request, revoked, holder);
      const reason = await expectFailure(
        request,
        { identity: [presentation] },
        'credential_revoked',
        { identity: [await present(request, await foreignCredential(holder), holder)] },
      );
      expect(reason).toBe('identity: the status list says the credential is revoked (INVALID)');
    });
  });

  describe('a Data Integrity presentation (ldp_vc) of a credential another tenant issued', () => {
    it('is verified with its types and credentialSubject when challenge and domain are the request’s', async () => {
      const { holder, credential } = await alumni();
      const request = await open({ credentials: [alumniQuery] });
      const presentation = await holder.present([credential], request.nonce, request.clientId);
      expect(await answer(request, { alumni: [presentation] })).toEqual({
        status: 200,
        body: {},
      });
      const read_ = await read(request);
      expect(read_).toMatchObject({ status: 'verified' });
      expect(read_.presented).toEqual({
        alumni: [
          {
            format: 'ldp_vc',
            issuer: credential.issuer,
            types: alumniTypes,
            holderKeyThumbprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
            status: 'valid',
            claims: { credentialSubject: { id: holder.did, alumniOf: 'Examples' } },
          },
        ],
      });
    });

    it.each([
      [
        'another challenge',
        'nonce_mismatch',
        /^alumni: challenge check/,
        (request: Opened) => ['another', request.clientId],
      ],
      [
        'another domain',
        'audience_mismatch',
        /^alumni: domain check/,
        (request: Opened) => [request.nonce, 'x509_san_dns:rp.example'],
      ],
    ] as const)(
      'refuses %s (%s), leaving the request to the right answer',
      async (_case, _code, named, proofOptions) => {
        const { holder, credential } = await alumni();
        const request = await open({ credentials: [alumniQuery] });
        const [challenge, domain] = proofOptions(request);
        const wrong = await holder.present([credential], challenge, domain);
        expect(await expectRefusal(request, { alumni: [wrong] })).toMatch(named);
        const right = await holder.present([credential], request.nonce, request.clientId);
        expect(await answer(request, { alumni: [right] })).toEqual({ status: 200, body: {} });
        expect(await read(request)).toMatchObject({ status: 'verified' });
      },
    );
  });

  describe('several credential queries, credential sets and claim sets', () => {
    it('verifies an answer to two queries: an SD-JWT VC and an ldp_vc', async () => {
      const key = await walletKey('ES256');
      const sdJwt = await foreignCredential(key);
      const { holder, credential } = await alumni();
      const request = await open({ credentials: [identityQuery(), alumniQuery] });
      const vpToken = {
        identity: [await present(request, sdJwt, key, { given_name: true })],
        alumni: [await holder.present([credential], request.nonce, request.clientId)],
      };
      expect((await answer(request, vpToken)).status).toBe(200);
      expect(await read(request)).toMatchObject({
        status: 'verified',
        presented: {
          identity: [{ format: 'dc+sd-jwt', vct: identity, claims: { given_name: 'Erika' } }],
          alumni: [{ format: 'ldp_vc', types: alumniTypes }],
        },
      });
    });

    it('fails an answer to one of two required queries, naming what is missing', async () => {
      const key = await walletKey('ES256');
      const request = await open({
        credentials: [
          identityQuery(),
          identityQuery({ id: 'diploma', meta: { vct_values: [diploma] } }),
        ],
      });
      const only = { identity: [await present(request, await foreignCredential(key), key)] };
      const reason = await expectFailure(request, only, 'query_not_satisfied', only);
      expect(reason).toBe(
        'The answer lacks a credential the query requires (asked for: identity, diploma; given: identity).',
      );
    });

    it('verifies a credential set satisfied by the second of its two options', async () => {
      const key = await walletKey('ES256');
      const request = await open({
        credentials: [
          identityQuery(),
          identityQuery({ id: 'diploma', meta: { vct_values: [diploma] } }),
        ],
        credential_sets: [{ options: [['identity'], ['diploma']] }],
      });
      const credential = await foreignCredential(key, { vct: diploma });
      const answered = await answer(request, {
        diploma: [await present(request, credential, key)],
      });
      expect(answered.status).toBe(200);
      const read_ = await read(request);
      expect(read_).toMatchObject({
        status: 'verified',
        presented: { diploma: [{ vct: diploma, issuer: foreignIssuer.iss }] },
      });
      expect(read_.presented).not.toHaveProperty('identity');
    });

    const claimSetsQuery = {
      credentials: [
        identityQuery({
          claims: [
            { id: 'given', path: ['given_name'] },
            { id: 'birth', path: ['birthdate'] },
            { id: 'family', path: ['family_name'] },
          ],
          claim_sets: [['given', 'birth'], ['family']],
        }),
      ],
    };
    const claims = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' };

    it('verifies a wallet that discloses only the second claim set', async () => {
      const key = await walletKey('ES256');
      const credential = await foreignCredential(key, { claims });
      const request = await open(claimSetsQuery);
      const presentation = await present(request, credential, key, { family_name: true });
      expect((await answer(request, { identity: [presentation] })).status).toBe(200);
      expect(await read(request)).toMatchObject({
        status: 'verified',
        presented: { identity: [{ claims: { family_name: 'Mustermann' } }] },
      });
    });

    it('fails a wallet that discloses neither claim set, naming a path', async () => {
      const key = await walletKey('ES256');
      const credential = await foreignCredential(key, { claims });
      const request = await open(claimSetsQuery);
      const partial = await present(request, credential, key, { given_name: true });
      const reason = await expectFailure(request, { identity: [partial] }, 'query_not_satisfied', {
        identity: [await present(request, credential, key, { family_name: true })],
      });
      expect(reason).toBe(
        'A credential for identity does not disclose the requested claim birthdate, family_name.',
      );
    });
  });

  describe('holder binding', () => {
    const unbound = async () =>
      disclose(await foreignCredential(null), { given_name: true, family_name: true });

    it('refuses a credential without cnf when the query requires holder binding (the default)', async () => {
      const request = await open({ credentials: [identityQuery()] });
      expect(
        (request.resolved.dcql?.query as { credentials: Json[] }).credentials[0],
      ).toMatchObject({
        require_cryptographic_holder_binding: true,
      });
      const presentation = await unbound();
      const reason = await expectRefusal(request, { identity: [presentation] });
      expect(reason).toBe(
        'A credential for identity is not of a kind the query accepts (vct, type or doctype, or holder binding).',
      );
    });

    it('accepts it when the query sets require_cryptographic_holder_binding false', async () => {
      const request = await open({
        credentials: [identityQuery({ require_cryptographic_holder_binding: false })],
      });
      expect((await answer(request, { identity: [await unbound()] })).status).toBe(200);
      expect(await read(request)).toMatchObject({
        status: 'verified',
        presented: {
          identity: [
            {
              issuer: foreignIssuer.iss,
              holderKeyThumbprint: null,
              claims: { given_name: 'Erika' },
            },
          ],
        },
      });
    });
  });
});
