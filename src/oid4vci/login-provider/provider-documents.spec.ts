import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { testClock } from '../../../test/support/service-fakes.js';
import { loginProviderLimits } from './login-provider-limits.js';
import { ProviderDocuments } from './provider-documents.js';

/** The key set remembered, and fetched again for an unknown kid at most once per interval. */
describe(ProviderDocuments.name, () => {
  let server: Server;
  let jwksUri: string;
  let fetches = 0;
  const policy = { allowPrivate: 'loopback' } as const;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches += 1;
      response.setHeader('content-type', 'application/json');
      const keys = Array.from({ length: 40 }, (_, index) => ({ kty: 'oct', kid: `k${index}` }));
      response.end(JSON.stringify({ keys: [{ kty: 'EC', kid: 'private', d: 'x' }, ...keys] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('keeps at most the cap of public keys and refetches a stale set at most once per interval', async () => {
    const time = testClock();
    const documents = new ProviderDocuments(time.clock);
    const keys = await documents.keys(jwksUri, policy);
    expect(keys).toHaveLength(loginProviderLimits.keys);
    expect(keys.some((key) => 'd' in key)).toBe(false);
    await documents.keys(jwksUri, policy);
    await documents.keys(jwksUri, policy, true);
    expect(fetches).toBe(1);
    time.advance(loginProviderLimits.jwksRefetchMs);
    await documents.keys(jwksUri, policy, true);
    await documents.keys(jwksUri, policy, true);
    expect(fetches).toBe(2);
  });
});
