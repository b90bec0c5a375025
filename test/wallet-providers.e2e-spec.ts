import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { withFlippedSignatureBit } from './support/tampered.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCertificate, makePki, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;
const base = '/ctrl/api/v1.0/wallet-providers';

/**
 * A tenant's trusted wallet providers and its attestation policy over real HTTP and PostgreSQL: the
 * routes and their access rules, tenant isolation, refusals and bounds (docs/wallet-providers.md).
 * Certificates are made by @peculiar/x509 in the test.
 */
describe('Wallet providers', () => {
  let service: TestService;
  let pki: Awaited<ReturnType<typeof makePki>>;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['demo', 'other', 'full']) {
      await service.client().createTenant({ id, label: id });
    }
    pki = await makePki();
  });
  afterAll(() => service.close());

  const create = (tenantId: string, body: unknown, as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(`${base}/create`, {
      method: 'POST',
      as,
      headers: { 'x-tenant-id': tenantId },
      body,
    });

  it('adds, reads, lists and removes a wallet provider (an agent-user for its own tenant)', async () => {
    const client = service.client('demo');
    const added = await client.createWalletProvider('demo', {
      certificate: pki.root.pem,
      label: 'Test root',
    });
    expect(added).toMatchObject({
      tenantId: 'demo',
      label: 'Test root',
      subject: pki.root.subject,
      issuer: pki.root.subject,
      subjectKeyIdentifier: pki.root.keyId,
      notBefore: pki.root.certificate.notBefore.toISOString(),
      notAfter: pki.root.certificate.notAfter.toISOString(),
    });
    expect(added.certificate.replace(/\s/g, '')).toBe(pki.root.pem.replace(/\s/g, ''));
    expect(await client.getWalletProvider('demo', added.id)).toEqual(added);
    const page = await client.listWalletProviders('demo', { sort: 'notAfter,asc', size: 10 });
    expect(page).toMatchObject({ number: 0, size: 10, totalElements: 1, totalPages: 1 });
    expect(page.content).toEqual([added]);

    await client.deleteWalletProvider('demo', added.id);
    const gone = await service.request(`${base}/${added.id}`, {
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(gone, 404, 'WALLET_PROVIDER_NOT_FOUND', `${base}/${added.id}`);
  });

  it('keeps tenants apart: another tenant cannot read, delete or list a wallet provider', async () => {
    const { id } = (await create('demo', { certificate: pki.intermediate.pem })).body as {
      id: string;
    };
    try {
      for (const [path, method] of [
        [`${base}/${id}`, 'GET'],
        [`${base}/${id}/delete`, 'POST'],
      ] as const) {
        const response = await service.request(path, {
          method,
          headers: { 'x-tenant-id': 'other' },
        });
        expectProblem(response, 404, 'WALLET_PROVIDER_NOT_FOUND', path);
      }
      expect((await service.client().listWalletProviders('other')).totalElements).toBe(0);
      // The same certificate is another tenant's own wallet provider, not a duplicate.
      const same = await create('other', { certificate: pki.intermediate.pem });
      expect(same.status).toBe(201);
      await service.client().deleteWalletProvider('other', String(same.body.id));
      expect((await service.client().getWalletProvider('demo', id)).id).toBe(id);
    } finally {
      await service.client().deleteWalletProvider('demo', id);
    }
  });

  it('refuses a missing, malformed or foreign tenant header, an unknown tenant, and bad tokens', async () => {
    const body = { certificate: pki.root.pem };
    const path = `${base}/create`;
    expectProblem(
      await service.request(path, { method: 'POST', body }),
      400,
      'TENANT_HEADER_MISSING',
      path,
    );
    expectProblem(await create('../demo', body), 400, 'TENANT_HEADER_INVALID', path);
    expectProblem(await create('other', body, 'demo'), 403, 'FORBIDDEN', path);
    const foreignList = await service.request(base, {
      as: 'demo',
      headers: { 'x-tenant-id': 'other' },
    });
    expectProblem(foreignList, 403, 'FORBIDDEN', base);
    expectProblem(await create('nobody', body), 404, 'TENANT_NOT_FOUND', path);
    const anonymous = await service.request(base, {
      as: 'anonymous',
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(anonymous, 401, 'UNAUTHORIZED', base);
    // A token whose signature was altered, and one whose payload claims another user.
    const token = await service.tokenFor('demo');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Json;
    const admin = Buffer.from(JSON.stringify({ ...claims, preferred_username: 'admin' })).toString(
      'base64url',
    );
    for (const forged of [withFlippedSignatureBit(token), `${header}.${admin}.${signature}`]) {
      const response = await service.request(path, {
        method: 'POST',
        token: forged,
        headers: { 'x-tenant-id': 'demo' },
        body,
      });
      expectProblem(response, 401, 'UNAUTHORIZED', path);
    }
    for (const tenantId of ['demo', 'other']) {
      expect((await service.client().listWalletProviders(tenantId)).totalElements).toBe(0);
    }
  });

  it.each<[string, () => unknown, string]>([
    ['no certificate', () => ({ label: 'x' }), 'certificate'],
    ['a certificate that is not a string', () => ({ certificate: 7 }), 'certificate'],
    ['text that is not PEM', () => ({ certificate: 'hello' }), 'certificate'],
    ['base64 DER without PEM armour', () => ({ certificate: pki.root.base64 }), 'certificate'],
    [
      'PEM armour around no certificate',
      () => ({ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }),
      'certificate',
    ],
    [
      'two certificates at once',
      () => ({ certificate: `${pki.root.pem}\n${pki.intermediate.pem}` }),
      'certificate',
    ],
    [
      'an issued leaf (not a CA, not self-signed)',
      () => ({ certificate: pki.leaf.pem }),
      'certificate',
    ],
    [
      'a certificate over 12,000 characters',
      () => ({ certificate: 'A'.repeat(12_001) }),
      'certificate',
    ],
    [
      'a label over 200 characters',
      () => ({ certificate: pki.root.pem, label: 'l'.repeat(201) }),
      'label',
    ],
    ['an unknown field', () => ({ certificate: pki.root.pem, trusted: true }), 'trusted'],
  ])('refuses %s with 400, adding nothing', async (_case, body, field) => {
    const response = await create('demo', body());
    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', `${base}/create`), [field]);
    expect((await service.client().listWalletProviders('demo')).totalElements).toBe(0);
  });

  it('refuses an expired certificate, and one with a garbled extension, with 400', async () => {
    const expired = await makeCertificate('Old root', {
      ca: true,
      notBefore: new Date(Date.now() - 3 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const garbled = await makeCertificate('Garbled root', {
      ca: true,
      extraExtensions: [new x509.Extension('2.5.29.17', false, new Uint8Array([4, 1, 255]))],
    });
    const refused = await create('demo', { certificate: garbled.pem });
    expectFieldErrors(expectProblem(refused, 400, 'VALIDATION_FAILED', `${base}/create`), [
      'certificate',
    ]);
    const response = await create('demo', { certificate: expired.pem });
    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', `${base}/create`), [
      'certificate',
    ]);
  });

  it('keeps the attestation policy: required with a provider by default, optional without, or as set', async () => {
    const client = service.client('demo');
    expect(await client.getWalletAttestationPolicy('demo')).toEqual({
      walletAttestation: 'optional',
      explicit: false,
    });
    const added = await client.createWalletProvider('demo', { certificate: pki.root.pem });
    try {
      expect(await client.getWalletAttestationPolicy('demo')).toEqual({
        walletAttestation: 'required',
        explicit: false,
      });
      expect(await client.setWalletAttestationPolicy('demo', 'optional')).toEqual({
        walletAttestation: 'optional',
        explicit: true,
      });
      expect(await client.setWalletAttestationPolicy('demo', null)).toEqual({
        walletAttestation: 'required',
        explicit: false,
      });
      const path = `${base}/policy`;
      for (const body of [{}, { walletAttestation: 'sometimes' }, { walletAttestation: 1 }]) {
        const refused = await service.request(path, {
          method: 'POST',
          headers: { 'x-tenant-id': 'demo' },
          body,
        });
        expectFieldErrors(expectProblem(refused, 400, 'VALIDATION_FAILED', path), [
          'walletAttestation',
        ]);
      }
      const foreign = await service.request(path, {
        method: 'POST',
        as: 'demo',
        headers: { 'x-tenant-id': 'other' },
        body: { walletAttestation: 'optional' },
      });
      expectProblem(foreign, 403, 'FORBIDDEN', path);
      expect((await service.client().getWalletAttestationPolicy('other')).explicit).toBe(false);
    } finally {
      await client.deleteWalletProvider('demo', added.id);
    }
  });

  it('answers 404 for an id that is not a UUID, and 400 for an unknown sort', async () => {
    const path = `${base}/not-a-uuid`;
    expectProblem(
      await service.request(path, { headers: { 'x-tenant-id': 'demo' } }),
      404,
      'WALLET_PROVIDER_NOT_FOUND',
      path,
    );
    const sorted = await service.request(base, {
      headers: { 'x-tenant-id': 'demo' },
      query: { sort: 'certificate' },
    });
    expectFieldErrors(expectProblem(sorted, 400, 'VALIDATION_FAILED', base), ['sort']);
  });

  it('refuses the same certificate twice with 409, and replays an Idempotency-Key', async () => {
    const key = { 'idempotency-key': 'provider-once-1' };
    const first = await service.request<Json>(`${base}/create`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'other', ...key },
      body: { certificate: pki.root.pem },
    });
    const replay = await service.request<Json>(`${base}/create`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'other', ...key },
      body: { certificate: pki.root.pem },
    });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expectProblem(
      await create('other', { certificate: pki.root.pem }),
      409,
      'WALLET_PROVIDER_ALREADY_EXISTS',
      `${base}/create`,
    );
    await service.client().deleteWalletProvider('other', String(first.body.id));
  });

  it('keeps at most 50 per tenant: the 51st is 422, even when sent at once', async () => {
    const certificates: TestCertificate[] = [];
    for (let index = 0; index < 54; index++) {
      certificates.push(await makeCertificate(`Root ${index}`, { ca: true }));
    }
    const sent = await Promise.all(
      certificates.map((each) => create('full', { certificate: each.pem })),
    );
    expect(sent.filter((response) => response.status === 201)).toHaveLength(50);
    for (const refused of sent.filter((response) => response.status !== 201)) {
      expectProblem(refused, 422, 'WALLET_PROVIDERS_LIMIT_REACHED', `${base}/create`);
    }
    expect((await service.client().listWalletProviders('full')).totalElements).toBe(50);
  });
});
