import { pngShowsLink } from './support/qr-png.js';
import { Openid4vciClient, setGlobalConfig } from '@openid4vc/openid4vci';
import { demoConfigurations } from '../src/oid4vci/demo-configurations.js';
import { offerClaimsPurpose } from '../src/oid4vci/offers/offer-claims.js';
import { OfferExpiry } from '../src/oid4vci/offers/offer-expiry.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { queryDatabase } from './support/database.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';

const base = '/ctrl/api/v1.0/oid4vci/offers';
const preAuthorized = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
type Json = Record<string, unknown>;
interface Created {
  id: string;
  status: string;
  credentialOffer: Json & { grants: Record<string, Json> };
  credentialOfferUri: string;
  txCode?: string;
  expiresAt: string;
}

/** A wallet that only resolves offers: none of the signing callbacks is used. */
function wallet(): Openid4vciClient {
  const unused = () => {
    throw new Error('not used to resolve an offer');
  };
  return new Openid4vciClient({
    callbacks: {
      fetch,
      hash: unused,
      generateRandom: unused,
      signJwt: unused,
      clientAuthentication: unused,
    },
  });
}

const claims = { given_name: 'Erika', address: { locality: 'Berlin' } };

/**
 * A tenant's OpenID4VCI credential offers over real HTTP and PostgreSQL: the links (read by OWF's
 * wallet library), the transaction code, the claim rules, tenant isolation, expiry and the QR codes.
 */
describe('OpenID4VCI credential offers', () => {
  let service: TestService;
  let issuer: string;
  let offset = 0;
  const lines: string[] = [];

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService({
      clock: () => Date.now() + offset,
      logDestination: { write: (line) => lines.push(line) },
    });
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/demo`;
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
    await service.client().createCredentialConfiguration('demo', sdJwtBadge);
    await service.client().createCredentialConfiguration('demo', ldpBadge);
  });
  afterAll(() => service.close());
  afterEach(() => {
    offset = 0;
  });

  const create = (body: unknown, tenantId = 'demo', as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(base, { method: 'POST', as, headers: { 'x-tenant-id': tenantId }, body });
  const created = async (body: Json): Promise<Created> => {
    const response = await create({ credentialConfigurationId: sdJwtBadge.id, claims, ...body });
    expect(response.status).toBe(201);
    return response.body as unknown as Created;
  };
  const read = (path: string, tenantId = 'demo') =>
    service.request<Json>(path, { headers: { 'x-tenant-id': tenantId } });
  const offerRows = () =>
    queryDatabase<{ count: number }>(
      service.databaseUrl,
      'SELECT count(*)::int AS count FROM oid4vci_offer',
    );
  const stored = async (id: string) =>
    (
      await queryDatabase<Json>(
        service.databaseUrl,
        `SELECT status, claims_sealed, claims_master_key_id, claims_unsealed, tx_code_hash,
                master_key_id, secrets_sealed, configuration, o::text AS whole
           FROM oid4vci_offer o WHERE id = '${id}'`,
      )
    )[0];

  const noClaims = { claims_sealed: null, claims_master_key_id: null, claims_unsealed: null };
  /** No claim value in the clear anywhere in the row, and the sealed claims open to the given ones. */
  const expectClaimsSealed = (row: Json, id: string, given: Json = claims) => {
    const values = [
      'Erika',
      'Berlin',
      ...Object.values(given).map((value) => JSON.stringify(value)),
    ];
    const all = (row.whole as string) + (row.claims_sealed as Buffer).toString('latin1');
    for (const value of values) expect(all).not.toContain(value);
    expect(row.claims_unsealed).toBeNull();
    const vault = service.app.get(KeyVault, { strict: false });
    const opened = vault.open(
      id,
      row.claims_sealed as Buffer,
      offerClaimsPurpose,
      row.claims_master_key_id as string,
    );
    expect(JSON.parse(opened.toString('utf8'))).toEqual(given);
  };

  it('offers by reference with a transaction code: the wallet library resolves the link over HTTP', async () => {
    const offer = await created({ txCode: true });
    expect(offer).toMatchObject({ status: 'offered', txCode: expect.stringMatching(/^\d{6}$/) });
    expect(offer.credentialOffer).toEqual({
      credential_issuer: issuer,
      credential_configuration_ids: [sdJwtBadge.id],
      grants: {
        [preAuthorized]: {
          'pre-authorized_code': expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
          tx_code: { length: 6, input_mode: 'numeric' },
        },
      },
    });
    const link = new URL(offer.credentialOfferUri);
    expect(link.protocol).toBe('openid-credential-offer:');
    const uri = link.searchParams.get('credential_offer_uri')!;
    expect(uri).toMatch(new RegExp(`^${issuer}/credential-offers/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(offer.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect(Date.parse(offer.expiresAt) - Date.now()).toBeLessThanOrEqual(600_000);

    const resolved = await wallet().resolveCredentialOffer(offer.credentialOfferUri);
    expect(resolved).toMatchObject(offer.credentialOffer);

    const served = await fetch(uri);
    expect(served.status).toBe(200);
    expect(served.headers.get('cache-control')).toBe('no-store');
    expect(await served.json()).toEqual(offer.credentialOffer);

    // Only hashes and the sealed box are stored: no code, no reference, no transaction code in clear.
    const row = await stored(offer.id);
    const code = offer.credentialOffer.grants[preAuthorized]['pre-authorized_code'] as string;
    const reference = uri.split('/').pop()!;
    const all = JSON.stringify(row) + (row.secrets_sealed as Buffer).toString('latin1');
    for (const secret of [code, reference]) expect(all).not.toContain(secret);
    expect((row.tx_code_hash as Buffer).length).toBe(32);
    expect(row.master_key_id).toEqual(expect.any(String));
    expect(row.configuration).toMatchObject({ format: 'dc+sd-jwt', vct: sdJwtBadge.vct });
    expectClaimsSealed(row, offer.id);
    // The request log shows the route's parameter, never the reference.
    expect(lines.join('\n')).not.toContain(reference);
    expect(
      lines.some((line) => line.includes('/ctrl/oid4vci/demo/credential-offers/:reference')),
    ).toBe(true);
  });

  it('creates an offer from the OpenAPI examples as they are (Swagger’s Try it out), with the demo configurations', async () => {
    interface Operation {
      requestBody: { content: Record<string, { examples: Record<string, { value: Json }> }> };
    }
    const document = (await service.request<Json>('/ctrl/v3/api-docs', { as: 'anonymous' }))
      .body as { paths: Record<string, Record<string, Operation>> };
    const examples = (path: string) =>
      Object.values(document.paths[path].post.requestBody.content['application/json'].examples);
    // What local mode gives the demo tenant at its first start, which the offer examples name.
    await service.client().createTenant({ id: 'swagger', label: 'Swagger' });
    for (const configuration of demoConfigurations) {
      const made = await service.request(
        '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
        {
          method: 'POST',
          headers: { 'x-tenant-id': 'swagger' },
          body: configuration,
        },
      );
      expect(made.status).toBe(201);
    }
    for (const example of examples(base)) {
      expect((await create(example.value, 'swagger')).status).toBe(201);
    }
  });

  it('offers by value without a transaction code; a text code has its own length and description', async () => {
    const offer = await created({ byValue: true, expiresInSeconds: 3600 });
    expect(offer.txCode).toBeUndefined();
    expect(offer.credentialOffer.grants[preAuthorized]).not.toHaveProperty('tx_code');
    const inLink = new URL(offer.credentialOfferUri).searchParams.get('credential_offer')!;
    expect(JSON.parse(inLink)).toEqual(offer.credentialOffer);
    expect(await wallet().resolveCredentialOffer(offer.credentialOfferUri)).toMatchObject(
      offer.credentialOffer,
    );
    expect(Date.parse(offer.expiresAt) - Date.now()).toBeGreaterThan(3_590_000);

    const text = await created({
      txCode: { length: 8, inputMode: 'text', description: 'Sent by e-mail' },
    });
    expect(text.txCode).toMatch(/^[A-Z2-9]{8}$/);
    expect(text.credentialOffer.grants[preAuthorized].tx_code).toEqual({
      length: 8,
      input_mode: 'text',
      description: 'Sent by e-mail',
    });
  });

  it('reads, lists and withdraws (an agent-user for its tenant); a withdrawn offer is no longer served', async () => {
    const offer = await created({ txCode: { length: 4 } });
    const path = `${base}/${offer.id}`;
    const view = await read(path);
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      id: offer.id,
      status: 'offered',
      credentialConfigurationId: sdJwtBadge.id,
      format: 'dc+sd-jwt',
      doctype: null,
      credentialIds: [],
      txCodeRequired: true,
      grant: 'pre-authorized_code',
      notification: null,
      expiresAt: offer.expiresAt,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const page = await service.request<Json>(base, {
      as: 'demo',
      headers: { 'x-tenant-id': 'demo' },
      query: { sort: 'createdAt,desc', size: '2' },
    });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ number: 0, size: 2 });
    expect((page.body.content as Json[])[0]).toEqual(view.body);

    const withdrawn = await service.request<Json>(`${path}/withdraw`, {
      method: 'POST',
      as: 'demo',
      headers: { 'x-tenant-id': 'demo' },
    });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ id: offer.id, status: 'withdrawn' });
    const audit = lines.filter((line) => line.includes('oid4vci.offer.withdraw'));
    expect(audit.some((line) => line.includes(offer.id) && line.includes('demo'))).toBe(true);
    expect(await stored(offer.id)).toMatchObject(noClaims);
    const again = await service.request(`${path}/withdraw`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(again, 409, 'OFFER_NOT_OPEN', `${path}/withdraw`);
    expectProblem(await read(`${path}/qr.svg`), 409, 'OFFER_NOT_OPEN', `${path}/qr.svg`);
    const uri = new URL(offer.credentialOfferUri).searchParams.get('credential_offer_uri')!;
    const gone = await service.request(new URL(uri).pathname, { as: 'anonymous' });
    expectProblem(gone, 404, 'OFFER_NOT_FOUND', new URL(uri).pathname);
  });

  it('keeps tenants apart: another tenant’s offer is 404, an agent-user cannot act for another tenant', async () => {
    const offer = await created({});
    const path = `${base}/${offer.id}`;
    for (const [target, method] of [
      [path, 'GET'],
      [`${path}/withdraw`, 'POST'],
      [`${path}/qr.svg`, 'GET'],
      [`${path}/qr.png`, 'GET'],
    ] as const) {
      const response = await service.request(target, {
        method,
        headers: { 'x-tenant-id': 'other' },
      });
      expectProblem(response, 404, 'OFFER_NOT_FOUND', target);
    }
    expectProblem(await read(`${base}/not-a-uuid`), 404, 'OFFER_NOT_FOUND', `${base}/not-a-uuid`);
    const page = await read(base, 'other');
    expect(page.body).toMatchObject({ totalElements: 0 });
    const body = { credentialConfigurationId: sdJwtBadge.id, claims };
    expectProblem(await create(body, 'other', 'demo'), 403, 'FORBIDDEN', base);
    const foreign = await service.request(path, {
      as: 'demo',
      headers: { 'x-tenant-id': 'other' },
    });
    expectProblem(foreign, 403, 'FORBIDDEN', path);
    expectProblem(await create(body, 'nobody'), 404, 'TENANT_NOT_FOUND', base);
    const anonymous = await service.request(base, {
      as: 'anonymous',
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(anonymous, 401, 'UNAUTHORIZED', base);
    // The other tenant's issuer does not serve demo's reference.
    const uri = new URL(
      new URL(offer.credentialOfferUri).searchParams.get('credential_offer_uri')!,
    );
    const crossed = uri.pathname.replace('/demo/', '/other/');
    expectProblem(
      await service.request(crossed, { as: 'anonymous' }),
      404,
      'OFFER_NOT_FOUND',
      crossed,
    );
    const unknown =
      '/ctrl/oid4vci/demo/credential-offers/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expectProblem(
      await service.request(unknown, { as: 'anonymous' }),
      404,
      'OFFER_NOT_FOUND',
      unknown,
    );
    // The configuration comes from the offering tenant: another's is unknown.
    const missing = await create(body, 'other');
    expectProblem(missing, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', base);
  });

  it.each<[string, Json, string[]]>([
    ['a claim the configuration does not describe', { ...claims, age: 40 }, ['claims.age']],
    [
      'a nested claim it does not describe',
      { given_name: 'E', address: { street: 'x' } },
      ['claims.address.street'],
    ],
    ['a missing mandatory claim', { address: { locality: 'Berlin' } }, ['claims.given_name']],
    [
      'a registered claim the issuer sets',
      { ...claims, iss: 'https://evil.example' },
      ['claims.iss'],
    ],
    ['claims that are not an object', ['given_name'] as unknown as Json, ['claims']],
    [
      'claims nested too deeply',
      { given_name: 'E', address: { locality: 'B' }, x: [[[[[[[[['deep']]]]]]]]] },
      ['claims'],
    ],
    ['claims over 32 KiB', { given_name: 'E'.repeat(33_000) }, ['claims']],
  ])('refuses %s (400, nothing stored)', async (_, given, fields) => {
    const before = await offerRows();
    const response = await create({ credentialConfigurationId: sdJwtBadge.id, claims: given });
    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', base), fields);
    expect(await offerRows()).toEqual(before);
  });

  it.each<[string, Json, string]>([
    ['a txCode length of 3', { txCode: { length: 3 } }, 'txCode.length'],
    ['a txCode length of 9', { txCode: { length: 9 } }, 'txCode.length'],
    ['an unknown input mode', { txCode: { inputMode: 'emoji' } }, 'txCode.inputMode'],
    [
      'a description over 300 characters',
      { txCode: { description: 'x'.repeat(301) } },
      'txCode.description',
    ],
    ['a txCode that is a string', { txCode: '123456' }, 'txCode'],
    ['an unknown txCode field', { txCode: { value: '123456' } }, 'txCode.value'],
    ['expiresInSeconds under 60', { expiresInSeconds: 59 }, 'expiresInSeconds'],
    ['expiresInSeconds over a day', { expiresInSeconds: 86_401 }, 'expiresInSeconds'],
    ['a byValue that is not a boolean', { byValue: 'yes' }, 'byValue'],
    ['an unknown field', { subject: 'x' }, 'subject'],
  ])('refuses %s (400, nothing stored)', async (_, extra, field) => {
    const before = await offerRows();
    const response = await create({ credentialConfigurationId: sdJwtBadge.id, claims, ...extra });
    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', base), [field]);
    expect(await offerRows()).toEqual(before);
  });

  it('takes ldp_vc claims as credentialSubject’s properties, and an unknown configuration is 404', async () => {
    const ok = await create({ credentialConfigurationId: ldpBadge.id, claims: { name: 'Erika' } });
    expect(ok.status).toBe(201);
    const extra = await create({
      credentialConfigurationId: ldpBadge.id,
      claims: { name: 'E', id: 'did:example:1' },
    });
    expectFieldErrors(expectProblem(extra, 400, 'VALIDATION_FAILED', base), ['claims.id']);
    const before = await offerRows();
    const unknown = await create({ credentialConfigurationId: 'Nope', claims });
    expectProblem(unknown, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', base);
    expect(await offerRows()).toEqual(before);
  });

  it('answers the same offer to a repeated Idempotency-Key and writes an audit line', async () => {
    const body = { credentialConfigurationId: sdJwtBadge.id, claims, txCode: true };
    const headers = { 'x-tenant-id': 'demo', 'idempotency-key': 'offer-once-1' };
    const first = await service.request<Json>(base, { method: 'POST', headers, body });
    const second = await service.request<Json>(base, { method: 'POST', headers, body });
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    const audit = lines.filter((line) => line.includes('oid4vci.offer.create'));
    expect(
      audit.some((line) => line.includes(first.body.id as string) && line.includes('admin')),
    ).toBe(true);
    // The transaction code and the claims stay out of the log.
    expect(lines.join('\n')).not.toContain(`"${first.body.txCode as string}"`);
    expect(lines.join('\n')).not.toContain('Erika');
  });

  it('draws the open offer’s link as SVG and PNG QR codes', async () => {
    const offer = await created({});
    const token = await service.tokenFor('admin');
    for (const [format, type] of [
      ['svg', 'image/svg+xml'],
      ['png', 'image/png'],
    ] as const) {
      const response = await fetch(`${service.url}${base}/${offer.id}/qr.${format}`, {
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'demo' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      const bytes = Buffer.from(await response.arrayBuffer());
      if (format === 'png') {
        expect(bytes.subarray(0, 8)).toEqual(
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        );
        expect(pngShowsLink(bytes, offer.credentialOfferUri)).toBe(true);
      } else {
        expect(bytes.toString('utf8')).toMatch(
          /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\s*$/,
        );
      }
    }
  });

  it('seals the claims an offer made before they were sealed keeps in the clear, at the expiry job', async () => {
    const offer = await created({});
    // As the migration that brought sealing leaves an offer made before it.
    const before = { given_name: 'Rosalind', address: { locality: 'Dublin' } };
    await queryDatabase(
      service.databaseUrl,
      `UPDATE oid4vci_offer
          SET claims_unsealed = $2, claims_sealed = NULL, claims_master_key_id = NULL
        WHERE id = $1`,
      [offer.id, JSON.stringify(before)],
    );
    expect((await stored(offer.id)).whole).toContain('Rosalind');

    expect(await service.app.get(OfferExpiry).sealUnsealedClaims()).toBeGreaterThanOrEqual(1);
    const row = await stored(offer.id);
    expect((row.whole as string).includes('Rosalind')).toBe(false);
    expectClaimsSealed(row, offer.id, before);
    expect(await service.app.get(OfferExpiry).sealUnsealedClaims()).toBe(0);
  });

  it('reads an open offer past its time as expired; the job marks it, drops its claims and emits the event', async () => {
    const offer = await created({ expiresInSeconds: 60 });
    const path = `${base}/${offer.id}`;
    const uri = new URL(
      new URL(offer.credentialOfferUri).searchParams.get('credential_offer_uri')!,
    );
    expect((await fetch(uri)).status).toBe(200);
    offset = 61_000;
    expect((await read(path)).body).toMatchObject({ status: 'expired' });
    expect((await stored(offer.id)).status).toBe('offered');
    expectProblem(
      await service.request(uri.pathname, { as: 'anonymous' }),
      404,
      'OFFER_NOT_FOUND',
      uri.pathname,
    );
    expectProblem(await read(`${path}/qr.png`), 409, 'OFFER_NOT_OPEN', `${path}/qr.png`);
    const withdraw = await service.request(`${path}/withdraw`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(withdraw, 409, 'OFFER_NOT_OPEN', `${path}/withdraw`);

    const expired = await service.app.get(OfferExpiry).expireDue();
    expect(expired).toBeGreaterThanOrEqual(1);
    const row = await stored(offer.id);
    expect(row).toMatchObject({ status: 'expired', ...noClaims });
    const events = await queryDatabase<{ body: string }>(
      service.databaseUrl,
      `SELECT body FROM webhook_event WHERE type = 'oid4vci.offer.expired'`,
    );
    const data = events.map((event) => JSON.stringify(event.body));
    expect(data.some((body) => body.includes(offer.id) && body.includes(sdJwtBadge.id))).toBe(true);
    expect(data.join()).not.toContain('Erika');
    // Offers still open are left alone, and a second run finds nothing more.
    expect(await service.app.get(OfferExpiry).expireDue()).toBe(0);
    offset = 0;
    expect((await read(path)).body).toMatchObject({ status: 'expired' });
  });
});
