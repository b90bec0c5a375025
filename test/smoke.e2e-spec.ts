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

  // What src/common/express-adapter.ts relies on: Express keeps the prototypes the objects arrive with.
  it("hands Express requests and responses that already have Express's prototypes", async () => {
    const server: Server = service.app.getHttpServer();
    const express: Express = service.app.getHttpAdapter().getInstance();
    const arrived: [boolean, boolean][] = [];
    const kept: [boolean, boolean][] = [];
    const listener = (request: IncomingMessage, response: ServerResponse) => {
      const prototypes = [Object.getPrototypeOf(request), Object.getPrototypeOf(response)];
      arrived.push([prototypes[0] === express.request, prototypes[1] === express.response]);
      // Once Express has handled the request, it has not given either object another prototype.
      response.on('finish', () =>
        kept.push([
          Object.getPrototypeOf(request) === prototypes[0],
          Object.getPrototypeOf(response) === prototypes[1],
        ]),
      );
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
    expect(kept).toEqual(arrived.map(() => [true, true]));
  });
});
