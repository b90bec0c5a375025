import { type Express } from 'express';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

  // Express 5 re-parents every request and response it did not get with its own prototypes, which made
  // each request several times slower (issue 6; src/common/express-adapter.ts).
  it("hands Express requests and responses that already have Express's prototypes", async () => {
    const server: Server = service.app.getHttpServer();
    const express: Express = service.app.getHttpAdapter().getInstance();
    const arrived: [boolean, boolean][] = [];
    const listener = (request: IncomingMessage, response: ServerResponse) => {
      arrived.push([
        Object.getPrototypeOf(request) === express.request,
        Object.getPrototypeOf(response) === express.response,
      ]);
    };
    server.prependListener('request', listener);
    try {
      const answer = await service.request('/ctrl/api/v1.0/tenants');
      expect(answer.status).toBe(200);
    } finally {
      server.removeListener('request', listener);
    }
    // The token request and the call itself.
    expect(arrived.length).toBeGreaterThan(0);
    expect(arrived).toEqual(arrived.map(() => [true, true]));
  });
});
