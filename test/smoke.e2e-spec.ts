import { startTestService, type TestService } from './support/test-service.js';

describe('smoke', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('creates a tenant', async () => {
    const response = await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'acme', label: 'ACME' },
    });
    expect(response.status).toBe(201);
  });
});
