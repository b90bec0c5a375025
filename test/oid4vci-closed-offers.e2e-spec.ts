import { closedOfferDescriptions } from '../src/oid4vci/offers/offer-closed.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { postForm, startTestService, type TestService } from './support/test-service.js';

const preAuthorized = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
type Json = Record<string, unknown>;
interface Created {
  id: string;
  credentialOffer: { grants: Record<string, { 'pre-authorized_code': string }> };
  credentialOfferUri: string;
  txCode?: string;
  expiresAt: string;
}
const generic = 'There is no open credential offer here.';
const genericGrant = 'The pre-authorized code is not valid.';

/**
 * What the person holding the wallet hears about an offer that is not open: why (expired, used, too many
 * wrong codes, withdrawn) for a link or code that was really ours, the generic words for anything else,
 * and nothing of the offer's claims or tenant either way.
 */
describe('A wallet opening a closed credential offer', () => {
  let service: TestService;
  let offset = 0;

  beforeAll(async () => {
    service = await startTestService({ clock: () => Date.now() + offset });
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
    await service.client().createCredentialConfiguration('demo', sdJwtBadge);
  });
  afterAll(() => service.close());
  afterEach(() => {
    offset = 0;
  });

  const offer = async (body: Json = {}): Promise<Created> => {
    const response = await service.request<Created>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' }, ...body },
    });
    expect(response.status).toBe(201);
    return response.body;
  };
  const referencePath = (created: Created, tenantId = 'demo') =>
    new URL(
      new URL(created.credentialOfferUri).searchParams.get('credential_offer_uri')!,
    ).pathname.replace('/demo/', `/${tenantId}/`);
  const open = (path: string) => service.request<Json>(path, { as: 'anonymous' });
  const codeOf = (created: Created) =>
    created.credentialOffer.grants[preAuthorized]['pre-authorized_code'];
  const redeem = (code: string, extra: Record<string, string> = {}, tenantId = 'demo') =>
    postForm(service.url, `/ctrl/oid4vci/${tenantId}/token`, {
      grant_type: preAuthorized,
      'pre-authorized_code': code,
      ...extra,
    });

  /** A 404 OFFER_NOT_FOUND problem with exactly these words, and nothing about the offer. */
  const expectClosed = (
    response: { status: number; body: unknown; text: string },
    detail: string,
  ) => {
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'OFFER_NOT_FOUND', detail });
    expect(Object.keys(response.body as Json).sort()).toEqual(
      ['code', 'detail', 'instance', 'status', 'title', 'type'].sort(),
    );
    expect(response.text).not.toContain('Erika');
    expect(response.text).not.toContain(sdJwtBadge.id);
  };
  const expectGrantRefused = (
    response: { status: number; body: unknown; text: string },
    description: string,
  ) => {
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_grant', error_description: description });
  };

  it('says an offer has already been used, to the link and to the code', async () => {
    const created = await offer();
    expect((await open(referencePath(created))).status).toBe(200);
    expect((await redeem(codeOf(created))).status).toBe(200);
    expectClosed(await open(referencePath(created)), closedOfferDescriptions.used);
    expectGrantRefused(await redeem(codeOf(created)), closedOfferDescriptions.used);
  });

  it('says an offer has expired once its time has passed', async () => {
    const created = await offer({ expiresInSeconds: 60 });
    offset = Date.parse(created.expiresAt) - Date.now() + 1000;
    expectClosed(await open(referencePath(created)), closedOfferDescriptions.expired);
    expectGrantRefused(await redeem(codeOf(created)), closedOfferDescriptions.expired);
  });

  it('says the issuer withdrew an offer', async () => {
    const created = await offer();
    const withdrawn = await service.request(
      `/ctrl/api/v1.0/oid4vci/offers/${created.id}/withdraw`,
      {
        method: 'POST',
        headers: { 'x-tenant-id': 'demo' },
      },
    );
    expect(withdrawn.status).toBe(200);
    expectClosed(await open(referencePath(created)), closedOfferDescriptions.withdrawn);
    expectGrantRefused(await redeem(codeOf(created)), closedOfferDescriptions.withdrawn);
  });

  it('says an offer was closed by too many wrong transaction codes', async () => {
    const created = await offer({ txCode: true });
    const wrong = created.txCode === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++)
      expectGrantRefused(
        await redeem(codeOf(created), { tx_code: wrong }),
        'The transaction code is wrong.',
      );
    expectGrantRefused(
      await redeem(codeOf(created), { tx_code: created.txCode! }),
      closedOfferDescriptions.failed,
    );
    expectClosed(await open(referencePath(created)), closedOfferDescriptions.failed);
  });

  it('keeps the generic words for a reference or code that is not ours, or another tenant’s', async () => {
    const created = await offer();
    await redeem(codeOf(created));
    const unknown =
      '/ctrl/oid4vci/demo/credential-offers/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expectClosed(await open(unknown), generic);
    expectClosed(await open(referencePath(created, 'other')), generic);
    expectClosed(await open('/ctrl/oid4vci/demo/credential-offers/not-a-reference'), generic);
    expectGrantRefused(await redeem('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), genericGrant);
    expectGrantRefused(await redeem(codeOf(created), {}, 'other'), genericGrant);
  });
});
