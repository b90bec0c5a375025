import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { RealmSigningKeys } from './realm-signing-keys.js';

function segment(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString(
    'base64url',
  );
}

/** A token-shaped text; the signature does not matter here, only which key is handed out. */
function token(header: unknown, payload: unknown = { sub: 'someone' }): string {
  return `${segment(header)}.${segment(payload)}.${segment('signature')}`;
}

describe(RealmSigningKeys.name, () => {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let server: Server;
  let fetches = 0;
  let jwksUri: string;

  beforeAll(async () => {
    const jwk = {
      ...publicKey.export({ format: 'jwk' }),
      kid: 'realm-key',
      use: 'sig',
      alg: 'RS256',
    };
    server = createServer((_request, response) => {
      fetches += 1;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    fetches = 0;
  });

  function keyOf(keys: RealmSigningKeys, raw: string): Promise<KeyObject | null> {
    return new Promise((resolve, reject) =>
      keys.keyFor(raw, (error, key) => (error === null ? resolve(key) : reject(error))),
    );
  }

  it('hands out the realm key for every token of its header, fetching the key set once', async () => {
    const keys = new RealmSigningKeys({ jwksUri: () => jwksUri });
    const header = { alg: 'RS256', typ: 'JWT', kid: 'realm-key' };
    for (let n = 0; n < 5; n += 1) {
      const key = await keyOf(keys, token(header, { sub: `user-${n}` }));
      expect(key?.equals(publicKey)).toBe(true);
    }
    expect(fetches).toBe(1);
  });

  it('judges each header text on its own: the realm kid with another algorithm gets no key', async () => {
    const keys = new RealmSigningKeys({ jwksUri: () => jwksUri });
    expect(await keyOf(keys, token({ alg: 'RS256', kid: 'realm-key' }))).not.toBeNull();
    expect(await keyOf(keys, token({ alg: 'HS256', kid: 'realm-key' }))).toBeNull();
    expect(await keyOf(keys, token({ alg: 'none', kid: 'realm-key' }))).toBeNull();
    expect(await keyOf(keys, token('not json'))).toBeNull();
    expect(await keyOf(keys, 'no dots at all')).toBeNull();
    expect(await keyOf(keys, token({ alg: 'RS256', kid: 'realm-key' }))).not.toBeNull();
  });

  it('keeps at most a few header texts, however many different ones arrive', async () => {
    const keys = new RealmSigningKeys({ jwksUri: () => jwksUri });
    for (let n = 0; n < 500; n += 1) {
      expect(await keyOf(keys, token({ alg: 'HS256', kid: `forged-${n}` }))).toBeNull();
    }
    expect((keys as unknown as { headers: Map<string, unknown> }).headers.size).toBeLessThanOrEqual(
      16,
    );
    expect(fetches).toBe(0);
    expect(await keyOf(keys, token({ alg: 'RS256', kid: 'realm-key' }))).not.toBeNull();
  });
});
