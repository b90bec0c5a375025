import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { IssuedCredentialRepository } from '../src/credentials/issuing/issued-credential.repository.js';
import {
  HolderIssuanceService,
  type HolderCredential,
  type HolderIssueRequest,
  type HolderKey,
  type LdpVcRequest,
  type SdJwtVcRequest,
} from '../src/credentials/issuing/holder-issuance.service.js';
import { queryDatabase } from './support/database.js';
import { type PublicJwk } from '../src/jose/jwk.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { examplesV2, verifyCredential, type Json } from './support/credentials-harness.js';

const statusPath = '/ctrl/api/v1.0/credentials/status';
const vct = 'https://credentials.example.com/identity_credential';

const base64urlJson = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;

/** A wallet's key pair: the public JWK goes into the credential's `cnf`. */
async function holderKey(): Promise<HolderKey> {
  const { publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { jwk: (await exportJWK(publicKey)) as PublicJwk };
}

/** The JWS and disclosures of a compact SD-JWT (no key binding JWT: it ends in `~`). */
function partsOf(sdJwt: string) {
  expect(sdJwt.endsWith('~')).toBe(true);
  const [jwt, ...disclosures] = sdJwt.slice(0, -1).split('~');
  const [header, payload] = jwt.split('.');
  return {
    header: base64urlJson(header),
    payload: base64urlJson(payload),
    disclosures: disclosures.map(
      (disclosure) =>
        JSON.parse(Buffer.from(disclosure, 'base64url').toString('utf8')) as unknown[],
    ),
    digests: disclosures.map((disclosure) =>
      createHash('sha256').update(disclosure, 'ascii').digest('base64url'),
    ),
  };
}

/** SD-JWT VCs and the Token Status List: real HTTP, real PostgreSQL. */
describe('Credentials: SD-JWT VC and ldp_vc for holders', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'sdjwt', label: 'SD-JWT' });
    await service.client().createTenant({ id: 'other', label: 'Other' });
  });
  afterAll(() => service.close());

  const origin = (tenantId = 'sdjwt') => ({
    tenantId,
    offerId: randomUUID(),
    configurationId: 'identity',
    credentialIssuer: `${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}`,
  });

  const sdJwtRequest = (extra: Partial<SdJwtVcRequest> = {}): SdJwtVcRequest => ({
    ...origin(),
    format: 'dc+sd-jwt',
    vct,
    claims: {
      given_name: 'Erika',
      family_name: 'Mustermann',
      address: { street_address: 'Heidestraße 17', locality: 'Köln' },
      nationalities: ['DE', 'FR'],
    },
    selectivelyDisclosable: [
      ['given_name'],
      ['address', 'street_address'],
      ['nationalities', null],
      ['not_there'],
    ],
    signingAlgorithm: 'ES256',
    expiresInSeconds: 3600,
    revocable: true,
    ...extra,
  });

  /**
   * Records the credentials with the issue statement (`record_issue`) on `manager`, then signs them
   * with what their entries took: the credential endpoint's steps, without its offer.
   */
  async function recorded(
    manager: EntityManager,
    request: HolderIssueRequest,
    holders: HolderKey[],
  ) {
    const issuance = service.app.get(HolderIssuanceService);
    const records = service.app.get(IssuedCredentialRepository, { strict: false });
    const prepared = issuance.prepare(request, holders);
    const rows = await issuance.inStatement(prepared, (values) =>
      Promise.all(
        values.map(async (one) => (await records.issue(manager, { ...one, issuer: null }))[0]),
      ),
    );
    return { issuance, prepared, taken: rows.map((row) => row.taken) };
  }

  /** Records, each statement committed on its own, then signs. */
  async function issue(
    request: HolderIssueRequest,
    holders: HolderKey[],
  ): Promise<HolderCredential[]> {
    const { issuance, prepared, taken } = await recorded(
      service.app.get(DataSource).manager,
      request,
      holders,
    );
    return issuance.sign(request, prepared, taken);
  }

  /** A verifier with public material only: the issuer's keys and status lists over HTTP. */
  function verifier(tenantId = 'sdjwt') {
    const fetched: string[] = [];
    const instance = new SDJwtVcInstance({
      hasher: (data, alg) => {
        expect(alg).toBe('sha-256');
        return new Uint8Array(
          createHash('sha256')
            .update(data as string)
            .digest(),
        );
      },
      verifier: async (data, signature) => {
        const header = base64urlJson(data.split('.')[0]);
        const metadata = await service.request<{ issuer: string; jwks: { keys: JWK[] } }>(
          `/.well-known/jwt-vc-issuer/ctrl/oid4vci/${tenantId}`,
          { as: 'anonymous' },
        );
        expect(metadata.status).toBe(200);
        const jwk = metadata.body.jwks.keys.find((key) => key.kid === header.kid);
        if (jwk === undefined || jwk.alg !== header.alg) return false;
        const key = createPublicKey({ key: jwk as never, format: 'jwk' });
        const bytes = Buffer.from(signature, 'base64url');
        return jwk.alg === 'EdDSA'
          ? verify(null, Buffer.from(data), key, bytes)
          : verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, bytes);
      },
      statusListFetcher: async (uri) => {
        fetched.push(uri);
        const response = await fetch(uri, { headers: { accept: 'application/statuslist+jwt' } });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/statuslist+jwt');
        return response.text();
      },
    });
    return { instance, fetched };
  }

  const revoke = (tenantId: string, credentialId: string, statusPurpose = 'revocation') =>
    service.request(statusPath, {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: { credentialId, credentialStatus: { statusPurpose } },
    });

  it('issues an SD-JWT VC per holder key: typ, kid, iss, vct, cnf, exp, status, disclosures', async () => {
    const request = sdJwtRequest();
    const holders = [await holderKey(), await holderKey()];
    const issued = await issue(request, holders);
    expect(issued).toHaveLength(2);
    const { instance } = verifier();
    const indices: number[] = [];
    for (const [n, { credentialId, credential }] of issued.entries()) {
      expect(credentialId).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
      expect(typeof credential).toBe('string');
      const sdJwt = credential as string;
      const { header, payload, disclosures, digests } = partsOf(sdJwt);
      const metadata = await service.request<{ jwks: { keys: JWK[] } }>(
        '/.well-known/jwt-vc-issuer/ctrl/oid4vci/sdjwt',
        { as: 'anonymous' },
      );
      const es256 = metadata.body.jwks.keys.find((key) => key.alg === 'ES256')!;
      expect(header).toEqual({ typ: 'dc+sd-jwt', alg: 'ES256', kid: es256.kid });
      expect(payload).not.toHaveProperty('jti');
      expect(sdJwt).not.toContain(credentialId.slice('urn:uuid:'.length));
      expect(payload).toMatchObject({
        iss: request.credentialIssuer,
        vct,
        _sd_alg: 'sha-256',
        cnf: { jwk: holders[n].jwk },
        family_name: 'Mustermann',
        address: { locality: 'Köln' },
      });
      expect(payload.exp).toBe((payload.iat as number) + 3600);
      expect(Math.abs((payload.iat as number) - Date.now() / 1000)).toBeLessThan(60);
      // Disclosable: given_name, address.street_address, each nationality; the rest plain.
      expect(payload).not.toHaveProperty('given_name');
      expect(payload.address).not.toHaveProperty('street_address');
      expect(payload.nationalities).toEqual([
        { '...': expect.any(String) as string },
        { '...': expect.any(String) as string },
      ]);
      expect(disclosures).toHaveLength(4);
      expect(disclosures.map((disclosure) => disclosure.slice(1))).toEqual(
        expect.arrayContaining([
          ['given_name', 'Erika'],
          ['street_address', 'Heidestraße 17'],
          ['DE'],
          ['FR'],
        ]),
      );
      for (const [salt] of disclosures) {
        expect(Buffer.from(salt as string, 'base64url')).toHaveLength(16);
      }
      const referenced = [
        ...(payload._sd as string[]),
        ...((payload.address as Json)._sd as string[]),
        ...(payload.nationalities as { '...': string }[]).map((element) => element['...']),
      ];
      expect(referenced.sort()).toEqual([...digests].sort());
      const status = (payload.status as { status_list: { idx: number; uri: string } }).status_list;
      expect(status.uri).toMatch(
        new RegExp(`^${service.publicBaseUrl}/ctrl/status-lists/sdjwt/[0-9a-f-]{36}/token$`),
      );
      indices.push(status.idx);

      const verified = await instance.verify(sdJwt);
      expect(verified.payload).toMatchObject({
        ...request.claims,
        iss: request.credentialIssuer,
        vct,
      });
    }
    expect(indices[0]).not.toBe(indices[1]);
  });

  it('records the issuance with its format, offer and configuration, and its event without claims', async () => {
    const request = sdJwtRequest();
    const [{ credentialId }] = await issue(request, [await holderKey()]);
    const record = await service.request<Json>(`/ctrl/api/v1.0/credentials/${credentialId}`, {
      headers: { 'x-tenant-id': 'sdjwt' },
    });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      id: credentialId,
      types: [vct],
      cryptosuite: 'ES256',
      format: 'dc+sd-jwt',
      offerId: request.offerId,
      configurationId: 'identity',
      state: 'active',
      status: [{ statusPurpose: 'revocation', set: false }],
    });
    const page = await service.request<{ content: Json[] }>('/ctrl/api/v1.0/credentials', {
      headers: { 'x-tenant-id': 'sdjwt' },
      query: { type: vct },
    });
    expect(page.body.content.find((row) => row.id === credentialId)).toMatchObject({
      format: 'dc+sd-jwt',
      offerId: request.offerId,
    });
    const [row] = await queryDatabase<{ issued_by: string }>(
      service.databaseUrl,
      'SELECT issued_by FROM issued_credential WHERE id = $1',
      [credentialId],
    );
    expect(row.issued_by).toBe(`oid4vci:${request.offerId}`);
    const events = await queryDatabase<{ body: string }>(
      service.databaseUrl,
      `SELECT body FROM webhook_event WHERE type = 'credential.issued' AND body LIKE $1`,
      [`%${credentialId}%`],
    );
    expect(events).toHaveLength(1);
    for (const { body } of events) {
      expect(body).toContain(request.offerId);
      expect(body).not.toContain('Erika');
      expect(body).not.toContain('Mustermann');
    }
  });

  it("records in the caller's transaction: when it rolls back, no record, entry or event stays", async () => {
    const request = sdJwtRequest();
    let ids: string[] = [];
    await expect(
      service.app.get(DataSource).transaction(async (manager) => {
        const { prepared } = await recorded(manager, request, [
          await holderKey(),
          await holderKey(),
        ]);
        ids = prepared.map(({ holder }) => holder.credentialId);
        throw new Error('the offer could not be updated');
      }),
    ).rejects.toThrow('the offer could not be updated');
    expect(ids).toHaveLength(2);
    const [stored] = await queryDatabase<{ records: number; entries: number; events: number }>(
      service.databaseUrl,
      `SELECT (SELECT count(*)::int FROM issued_credential WHERE id = ANY($1)) AS records,
              (SELECT count(*)::int FROM credential_status_entry WHERE credential_id = ANY($1)) AS entries,
              (SELECT count(*)::int FROM webhook_event WHERE body LIKE $2) AS events`,
      [ids, `%${request.offerId}%`],
    );
    expect(stored).toEqual({ records: 0, entries: 0, events: 0 });
    const record = await service.request(`/ctrl/api/v1.0/credentials/${ids[0]}`, {
      headers: { 'x-tenant-id': 'sdjwt' },
    });
    expect(record.status).toBe(404);
  });

  it('revokes an SD-JWT VC by id: its bit shows in the Status List Token at once', async () => {
    const [first, second] = await issue(sdJwtRequest(), [await holderKey(), await holderKey()]);
    const statusOf = (credential: HolderCredential) =>
      (
        partsOf(credential.credential as string).payload.status as {
          status_list: { idx: number; uri: string };
        }
      ).status_list;
    const { uri, idx } = statusOf(first);
    const before = await fetch(uri);
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('public, max-age=10');
    const etag = before.headers.get('etag')!;
    const token = await before.text();
    expect(getListFromStatusListJWT(token).getStatus(idx)).toBe(0);
    const notModified = await fetch(uri, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);

    const revoked = await revoke('sdjwt', first.credentialId);
    expect(revoked.status).toBe(204);

    const after = await fetch(uri, { headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    const changed = await after.text();
    const [header, payload] = changed
      .split('.')
      .map((part, n) => (n < 2 ? base64urlJson(part) : {}));
    expect(header).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256' });
    expect(payload).toMatchObject({ sub: uri, ttl: 60, status_list: { bits: 1 } });
    expect(payload.exp).toBeGreaterThan(payload.iat as number);
    const list = getListFromStatusListJWT(changed);
    expect(list.getStatus(idx)).toBe(1);
    expect(list.getStatus(statusOf(second).idx)).toBe(0);

    const { instance, fetched } = verifier();
    await expect(instance.verify(first.credential as string)).rejects.toThrow(
      /Status is not valid/,
    );
    await expect(instance.verify(second.credential as string)).resolves.toBeDefined();
    expect(fetched).toEqual([uri, uri]);

    const record = await service.request<Json>(`/ctrl/api/v1.0/credentials/${first.credentialId}`, {
      headers: { 'x-tenant-id': 'sdjwt' },
    });
    expect(record.body.state).toBe('revoked');
  });

  it('refuses to suspend an SD-JWT VC with a clear problem: one bit, revocation only', async () => {
    const [{ credentialId }] = await issue(sdJwtRequest(), [await holderKey()]);
    const refused = await revoke('sdjwt', credentialId, 'suspension');
    const problem = expectProblem(refused, 400, 'VALIDATION_FAILED', statusPath);
    expect(problem.detail).toMatch(/cannot be suspended/);
    // Another tenant's credential id is not found, whatever its format.
    expectProblem(await revoke('other', credentialId), 404, 'CREDENTIAL_NOT_FOUND', statusPath);
  });

  it("signs EdDSA with the DID's Ed25519 key on request; a credential that is not revocable has no status", async () => {
    const [{ credential }] = await issue(
      sdJwtRequest({ signingAlgorithm: 'EdDSA', revocable: false, expiresInSeconds: null }),
      [await holderKey()],
    );
    const { header, payload } = partsOf(credential as string);
    const metadata = await service.request<{ jwks: { keys: JWK[] } }>(
      '/.well-known/jwt-vc-issuer/ctrl/oid4vci/sdjwt',
      { as: 'anonymous' },
    );
    const eddsa = metadata.body.jwks.keys.find((key) => key.alg === 'EdDSA')!;
    expect(eddsa).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig' });
    expect(header).toEqual({ typ: 'dc+sd-jwt', alg: 'EdDSA', kid: eddsa.kid });
    expect(payload).not.toHaveProperty('status');
    expect(payload).not.toHaveProperty('exp');
    const { instance, fetched } = verifier();
    await expect(instance.verify(credential as string)).resolves.toBeDefined();
    expect(fetched).toEqual([]);
    // Another tenant's keys do not verify it.
    await expect(verifier('other').instance.verify(credential as string)).rejects.toThrow();
  });

  it('serves the JWT VC Issuer Metadata: issuer, public keys only, cached a minute', async () => {
    const response = await service.request<{ issuer: string; jwks: { keys: JWK[] } }>(
      '/.well-known/jwt-vc-issuer/ctrl/oid4vci/sdjwt',
      { as: 'anonymous' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    expect(response.body.issuer).toBe(`${service.publicBaseUrl}/ctrl/oid4vci/sdjwt`);
    expect(response.body.jwks.keys.map((key) => key.alg)).toEqual(['ES256', 'EdDSA']);
    for (const key of response.body.jwks.keys) {
      expect(key.use).toBe('sig');
      expect(key).not.toHaveProperty('d');
    }
    const other = await service.request<{ jwks: { keys: JWK[] } }>(
      '/.well-known/jwt-vc-issuer/ctrl/oid4vci/other',
      { as: 'anonymous' },
    );
    const kids = new Set(response.body.jwks.keys.map((key) => key.kid));
    expect(other.body.jwks.keys.some((key) => kids.has(key.kid))).toBe(false);
  });

  it('answers problems for an unknown tenant, a bad tenant id, and lists that are not there', async () => {
    const anonymous = { as: 'anonymous' as const };
    const unknown = '/.well-known/jwt-vc-issuer/ctrl/oid4vci/nobody';
    expectProblem(await service.request(unknown, anonymous), 404, 'TENANT_NOT_FOUND', unknown);
    const bad = '/.well-known/jwt-vc-issuer/ctrl/oid4vci/-bad-';
    expectProblem(await service.request(bad, anonymous), 400, 'VALIDATION_FAILED', bad);

    const [{ credential }] = await issue(sdJwtRequest(), [await holderKey()]);
    const { uri } = (
      partsOf(credential as string).payload.status as {
        status_list: { uri: string };
      }
    ).status_list;
    const path = new URL(uri).pathname;
    const elsewhere = path.replace('/sdjwt/', '/other/');
    expectProblem(
      await service.request(elsewhere, anonymous),
      404,
      'STATUS_LIST_NOT_FOUND',
      elsewhere,
    );
    const missing = `/ctrl/status-lists/sdjwt/${randomUUID()}/token`;
    expectProblem(await service.request(missing, anonymous), 404, 'STATUS_LIST_NOT_FOUND', missing);
    const notAnId = '/ctrl/status-lists/sdjwt/not-a-list/token';
    expectProblem(await service.request(notAnId, anonymous), 404, 'STATUS_LIST_NOT_FOUND', notAnId);
    const badTenant = path.replace('/sdjwt/', '/-bad-/');
    expectProblem(await service.request(badTenant, anonymous), 400, 'VALIDATION_FAILED', badTenant);
  });

  it('has no Status List Token for a suspension list', async () => {
    const issued = await service.request<{ verifiableCredential: Json }>(
      '/ctrl/api/v1.0/credentials/issue',
      {
        method: 'POST',
        headers: { 'x-tenant-id': 'sdjwt' },
        body: {
          credential: {
            '@context': ['https://www.w3.org/ns/credentials/v2', examplesV2],
            type: ['VerifiableCredential', 'AlumniCredential'],
            credentialSubject: { id: 'did:example:1', alumniOf: 'Example' },
          },
          options: {
            credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
          },
        },
      },
    );
    expect(issued.status).toBe(201);
    const entry = issued.body.verifiableCredential.credentialStatus as Json;
    const path = `${new URL(entry.statusListCredential as string).pathname}/token`;
    expectProblem(
      await service.request(path, { as: 'anonymous' }),
      404,
      'STATUS_LIST_NOT_FOUND',
      path,
    );
    const record = await service.request<Json>(
      `/ctrl/api/v1.0/credentials/${issued.body.verifiableCredential.id as string}`,
      { headers: { 'x-tenant-id': 'sdjwt' } },
    );
    expect(record.body).toMatchObject({ format: 'ldp_vc', offerId: null, configurationId: null });
  });

  describe('ldp_vc', () => {
    const ldpRequest = (extra: Partial<LdpVcRequest> = {}): LdpVcRequest => ({
      ...origin(),
      format: 'ldp_vc',
      credentialDefinition: {
        '@context': ['https://www.w3.org/ns/credentials/v2', examplesV2],
        type: ['VerifiableCredential', 'AlumniCredential'],
      },
      claims: { alumniOf: 'The School of Examples' },
      cryptosuite: 'eddsa-rdfc-2022',
      expiresInSeconds: 3600,
      revocable: true,
      ...extra,
    });

    it("issues a Data Integrity credential to the holder's did:jwk, which POST /credentials/verify verifies", async () => {
      const holder = await holderKey();
      const request = ldpRequest();
      const [{ credentialId, credential }] = await issue(request, [holder]);
      const vc = credential as Json;
      const subject = vc.credentialSubject as Json;
      expect(subject.alumniOf).toBe('The School of Examples');
      const did = subject.id as string;
      expect(did).toMatch(/^did:jwk:/);
      expect(JSON.parse(Buffer.from(did.slice(8), 'base64url').toString('utf8'))).toEqual(
        holder.jwk,
      );
      expect(vc).toMatchObject({
        id: credentialId,
        type: ['VerifiableCredential', 'AlumniCredential'],
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        proof: { cryptosuite: 'eddsa-rdfc-2022' },
      });
      const did_ = await service.request<{ id: string }>('/ctrl/api/v1.0/did', {
        headers: { 'x-tenant-id': 'sdjwt' },
      });
      expect(vc.issuer).toBe(did_.body.id);
      expect(Date.parse(vc.validUntil as string) - Date.now()).toBeGreaterThan(3500_000);
      const verified = await verifyCredential(service, 'sdjwt', vc);
      expect(verified.status).toBe(200);
      expect(verified.body.verified).toBe(true);

      const record = await service.request<Json>(`/ctrl/api/v1.0/credentials/${credentialId}`, {
        headers: { 'x-tenant-id': 'sdjwt' },
      });
      expect(record.body).toMatchObject({
        format: 'ldp_vc',
        offerId: request.offerId,
        configurationId: 'identity',
        cryptosuite: 'eddsa-rdfc-2022',
      });
    });

    it("takes the holder's DID when the proof named one, with JCS and without status", async () => {
      const holder = { ...(await holderKey()), did: 'did:example:holder' };
      const [{ credential }] = await issue(
        ldpRequest({ cryptosuite: 'eddsa-jcs-2022', revocable: false }),
        [holder],
      );
      const vc = credential as Json;
      expect((vc.credentialSubject as Json).id).toBe('did:example:holder');
      expect(vc).not.toHaveProperty('credentialStatus');
      const verified = await verifyCredential(service, 'sdjwt', vc);
      expect(verified.body.verified).toBe(true);
    });
  });
});
