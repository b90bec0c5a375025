import { startTestService, type TestService } from './support/test-service.js';

describe('smoke', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('creates a tenant and reads its DID through the typed client', async () => {
    const client = service.client();
    const tenant = await client.createTenant({ id: 'acme', label: 'ACME' });
    expect(tenant).toMatchObject({ id: 'acme', label: 'ACME', imageUrl: null });
    expect((await client.getDid('acme')).id).toBe(tenant.did);
  });
});
