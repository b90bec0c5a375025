import { ed25519DidKey } from './support/api-shapes.js';
import { expectProblem } from './support/problems.js';
import { base58 } from '@scure/base';
import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { Settings } from '../src/config/settings.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { queryDatabase, type DidRow } from './support/database.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';
import { independentResolver, type DidKeyDriver } from './support/independent-did-resolver.js';
import { didKeyPurpose, signingKeyPurpose } from '../src/did/did.sealed-columns.js';

const didPath = '/ctrl/api/v1.0/did';
const documentPath = '/ctrl/api/v1.0/did/document';

interface TenantBody {
  id: string;
  did: string;
}

interface DidBody {
  id: string;
  public: boolean;
  verkey: string;
  method: string;
  keyType: string;
  publicKeyMultibase: string;
  createdAt: string;
}

interface ProblemBody {
  status: number;
  code: string;
  instance: string;
  errors?: { field: string; message: string }[];
}

/** DER headers of Ed25519 keys (RFC 8410): node:crypto takes raw keys only wrapped in them. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
const ed25519SpkiPrefix = Buffer.from('302a300506032b6570032100', 'hex');

function privateKeyFromSeed(seed: Uint8Array) {
  return createPrivateKey({
    key: Buffer.concat([ed25519Pkcs8Prefix, seed]),
    format: 'der',
    type: 'pkcs8',
  });
}

function publicKeyObject(rawPublicKey: Uint8Array) {
  return createPublicKey({
    key: Buffer.concat([ed25519SpkiPrefix, rawPublicKey]),
    format: 'der',
    type: 'spki',
  });
}

/** The raw Ed25519 public key of a seed, as node:crypto computes it. */
function publicKeyOfSeed(seed: Uint8Array): Buffer {
  const { x } = createPublicKey(privateKeyFromSeed(seed)).export({ format: 'jwk' });
  return Buffer.from(x!, 'base64url');
}

/** Every textual form in which a seed could leak: alone, and as the 64-byte seed + public key. */
function leakFormsOf(seed: Buffer, publicKey: Buffer): string[] {
  return [seed, Buffer.concat([seed, publicKey])].flatMap((bytes) => [
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    base58.encode(bytes),
  ]);
}

/** A header value as the UTF-8 bytes a client puts on the wire (fetch takes one character per byte). */
function utf8OnTheWire(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

describe('DID endpoints', () => {
  let service: TestService;
  let resolver: DidKeyDriver;
  /** Every response of the service in this file, to search them all for key material at the end. */
  const responses: ApiResponse[] = [];

  async function request<Body>(
    path: string,
    options?: Parameters<TestService['request']>[1],
  ): Promise<ApiResponse<Body>> {
    const response = await service.request<Body>(path, options);
    responses.push(response);
    return response;
  }

  async function createTenant(id: string): Promise<TenantBody> {
    const response = await request<TenantBody>('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id, label: `Tenant ${id}` },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  function getDid(tenantId: string): Promise<ApiResponse<DidBody>> {
    return request<DidBody>(didPath, { headers: { 'x-tenant-id': tenantId } });
  }

  async function didRowOf(tenantId: string): Promise<DidRow> {
    const rows = await queryDatabase<DidRow>(
      service.databaseUrl,
      'SELECT * FROM tenant_did WHERE tenant_id = $1',
      [tenantId],
    );
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  function vault(): KeyVault {
    return new KeyVault(Buffer.from(service.masterKey, 'base64'));
  }

  beforeAll(async () => {
    service = await startTestService();
    resolver = await independentResolver();
  });

  afterAll(async () => {
    await service.close();
  });

  describe(`GET ${didPath}`, () => {
    it("returns the tenant's DID with the original's id, public and verkey fields", async () => {
      const startedAt = Date.now();
      const tenant = await createTenant('did-owner');

      const response = await getDid('did-owner');

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
      expect(response.body).toEqual({
        id: tenant.did,
        public: true,
        verkey: expect.any(String),
        method: 'key',
        keyType: 'ed25519',
        publicKeyMultibase: tenant.did.slice('did:key:'.length),
        createdAt: expect.any(String),
      });
      expect(response.body.id).toMatch(ed25519DidKey);
      const createdAt = Date.parse(response.body.createdAt);
      expect(new Date(createdAt).toISOString()).toBe(response.body.createdAt);
      expect(createdAt).toBeGreaterThanOrEqual(startedAt - 1000);
      expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('gives the same DID as the tenant record, whether read from the list or one by one', async () => {
      const tenant = await createTenant('did-consistent');

      const one = await request<TenantBody>('/ctrl/api/v1.0/tenants/did-consistent');
      const page = await request<{ content: TenantBody[] }>('/ctrl/api/v1.0/tenants', {
        query: { q: 'did-consistent' },
      });

      expect((await getDid('did-consistent')).body.id).toBe(tenant.did);
      expect(one.body.did).toBe(tenant.did);
      expect(page.body.content.map(({ id, did }) => ({ id, did }))).toEqual([
        { id: 'did-consistent', did: tenant.did },
      ]);
    });

    it('gives a verkey that is the base58 of the 32-byte public key stored for the tenant', async () => {
      await createTenant('did-verkey');

      const response = await getDid('did-verkey');
      const row = await didRowOf('did-verkey');

      expect(row.public_key).toHaveLength(32);
      expect(Buffer.from(base58.decode(response.body.verkey))).toEqual(row.public_key);
      expect(row).toMatchObject({
        did: response.body.id,
        method: 'key',
        key_type: 'ed25519',
      });
      expect(row.created_at.toISOString()).toBe(response.body.createdAt);
    });

    it('gives the same DID every time it is asked', async () => {
      await createTenant('did-stable');

      const first = await getDid('did-stable');
      const second = await getDid('did-stable');

      expect(second.body).toEqual(first.body);
    });

    it('gives two tenants different DIDs and different keys', async () => {
      const first = await createTenant('did-first');
      const second = await createTenant('did-second');

      const firstDid = (await getDid('did-first')).body;
      const secondDid = (await getDid('did-second')).body;

      expect(first.did).not.toBe(second.did);
      expect(firstDid.id).toBe(first.did);
      expect(secondDid.id).toBe(second.did);
      expect(firstDid.verkey).not.toBe(secondDid.verkey);
      const firstRow = await didRowOf('did-first');
      const secondRow = await didRowOf('did-second');
      expect(firstRow.public_key.equals(secondRow.public_key)).toBe(false);
      expect(firstRow.private_key_sealed.equals(secondRow.private_key_sealed)).toBe(false);
    });

    it('tells tenants apart whose ids differ only in case', async () => {
      const upper = await createTenant('Acme');
      const lower = await createTenant('acme');

      expect((await getDid('Acme')).body.id).toBe(upper.did);
      expect((await getDid('acme')).body.id).toBe(lower.did);
      expect(upper.did).not.toBe(lower.did);
    });

    it('does not find a tenant under its id in another case', async () => {
      await createTenant('Zeta');

      expectProblem(await getDid('zeta'), 404, 'TENANT_NOT_FOUND', didPath);
      expectProblem(await getDid('ZETA'), 404, 'TENANT_NOT_FOUND', didPath);
    });
  });

  describe('the x-tenant-id header', () => {
    it.each([didPath, documentPath])('is required by %s: 400 without it', async (path) => {
      const response = await request<ProblemBody>(path);

      expectProblem(response, 400, 'TENANT_HEADER_MISSING', path);
      expect(response.body.errors).toEqual([{ field: 'x-tenant-id', message: expect.any(String) }]);
    });

    const malformed: [string, string][] = [
      ['empty', ''],
      ['65 characters long', 'a'.repeat(65)],
      ['with a space inside', 'ac me'],
      ['two ids joined by a comma', 'acme,beta'],
      ['two ids as a repeated header would join them', 'acme, beta'],
      ['starting with a dot', '.acme'],
      ['starting with a dash', '-acme'],
      ['a path', '../acme'],
      ['with a Latin-1 letter', 'acmé'],
      ['with a no-break space', 'acme\u00a0'],
      ['in UTF-8 Japanese', utf8OnTheWire('テナント')],
      ['with an emoji', utf8OnTheWire('acme🚀')],
      ['an SQL fragment', "acme' OR '1'='1"],
    ];

    it.each(malformed)('is refused with 400 when %s', async (_description, value) => {
      for (const path of [didPath, documentPath]) {
        const response = await request<ProblemBody>(path, { headers: { 'x-tenant-id': value } });

        expectProblem(response, 400, 'TENANT_HEADER_INVALID', path);
        expect(response.body.errors).toEqual([
          { field: 'x-tenant-id', message: expect.any(String) },
        ]);
      }
    });

    it('accepts an id of 64 characters, the longest a tenant id can be', async () => {
      const longest = `L${'x'.repeat(63)}`;
      const tenant = await createTenant(longest);

      const response = await getDid(longest);

      expect(response.status).toBe(200);
      expect(response.body.id).toBe(tenant.did);
    });

    it.each([didPath, documentPath])('names an unknown tenant with 404 on %s', async (path) => {
      const response = await request<ProblemBody>(path, {
        headers: { 'x-tenant-id': 'nobody-here' },
      });

      expectProblem(response, 404, 'TENANT_NOT_FOUND', path);
    });

    it('is read under any capitalisation of its name, as HTTP header names are', async () => {
      const tenant = await createTenant('header-case');

      const response = await request<DidBody>(didPath, {
        headers: { 'X-Tenant-Id': 'header-case' },
      });

      expect(response.status).toBe(200);
      expect(response.body.id).toBe(tenant.did);
    });
  });

  describe(`GET ${documentPath}`, () => {
    it('is exactly the document an independent did:key resolver gives for the DID', async () => {
      const tenant = await createTenant('doc-owner');

      const response = await request(documentPath, { headers: { 'x-tenant-id': 'doc-owner' } });

      expect(response.status).toBe(200);
      expect(response.body).toEqual(await resolver.get({ did: tenant.did }));
    });

    it('is, with format=multikey, exactly the Multikey document an independent resolver gives', async () => {
      const tenant = await createTenant('doc-multikey');
      const multikey = await independentResolver('multikey');

      const response = await request<{ verificationMethod: { type: string }[] }>(documentPath, {
        headers: { 'x-tenant-id': 'doc-multikey' },
        query: { format: 'multikey' },
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/did\+ld\+json(;|$)/);
      expect(response.body).toEqual(await multikey.get({ did: tenant.did }));
      expect(response.body.verificationMethod.map((method) => method.type)).toEqual(['Multikey']);
      // The default stays the 2020 suites' form, for the clients that read it today.
      const byDefault = await request(documentPath, {
        headers: { 'x-tenant-id': 'doc-multikey' },
        query: { format: 'ed25519-2020' },
      });
      expect(byDefault.body).toEqual(await resolver.get({ did: tenant.did }));
    });

    it('names an unknown format with 400', async () => {
      await createTenant('doc-format');

      const response = await request<{ code: string; errors: { field: string }[] }>(documentPath, {
        headers: { 'x-tenant-id': 'doc-format' },
        query: { format: 'jwk' },
      });

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('VALIDATION_FAILED');
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'format' })]);
    });

    it('is served as application/did+ld+json', async () => {
      await createTenant('doc-type');

      const response = await request(documentPath, { headers: { 'x-tenant-id': 'doc-type' } });

      expect(response.headers.get('content-type')).toMatch(/^application\/did\+ld\+json(;|$)/);
    });

    it("describes the tenant's own DID and public key", async () => {
      await createTenant('doc-key');
      const did = (await getDid('doc-key')).body;

      const response = await request<{
        id: string;
        verificationMethod: { id: string; controller: string; publicKeyMultibase: string }[];
      }>(documentPath, { headers: { 'x-tenant-id': 'doc-key' } });

      expect(response.body.id).toBe(did.id);
      expect(response.body.verificationMethod).toEqual([
        expect.objectContaining({
          id: `${did.id}#${did.publicKeyMultibase}`,
          controller: did.id,
          publicKeyMultibase: did.publicKeyMultibase,
        }),
      ]);
    });
  });

  describe('the stored private key', () => {
    it('is sealed: no 32 bytes of the row are a seed of the public key', async () => {
      await createTenant('sealed');

      const row = await didRowOf('sealed');

      for (let start = 0; start + 32 <= row.private_key_sealed.length; start += 1) {
        const candidate = row.private_key_sealed.subarray(start, start + 32);
        expect(publicKeyOfSeed(candidate).equals(row.public_key)).toBe(false);
      }
    });

    it("opens under the service's master key to a seed whose signatures the public key verifies", async () => {
      await createTenant('sealed-pair');
      const row = await didRowOf('sealed-pair');

      const seed = vault().open('sealed-pair', row.private_key_sealed, didKeyPurpose);

      expect(seed).toHaveLength(32);
      expect(publicKeyOfSeed(seed)).toEqual(row.public_key);
      const message = randomBytes(64);
      const signature = sign(null, message, privateKeyFromSeed(seed));
      expect(verify(null, message, publicKeyObject(row.public_key), signature)).toBe(true);
      expect(row.private_key_sealed.indexOf(seed)).toBe(-1);
    });

    it("does not open under another tenant's id", async () => {
      await createTenant('sealed-mine');
      await createTenant('sealed-theirs');
      const mine = await didRowOf('sealed-mine');
      const theirs = await didRowOf('sealed-theirs');

      expect(() => vault().open('sealed-theirs', mine.private_key_sealed, didKeyPurpose)).toThrow();
      expect(() => vault().open('sealed-mine', theirs.private_key_sealed, didKeyPurpose)).toThrow();
      expect(() => vault().open('Sealed-mine', mine.private_key_sealed, didKeyPurpose)).toThrow();
    });

    it('does not open under another master key', async () => {
      await createTenant('sealed-other-key');
      const row = await didRowOf('sealed-other-key');

      expect(() =>
        new KeyVault(randomBytes(32)).open(
          'sealed-other-key',
          row.private_key_sealed,
          didKeyPurpose,
        ),
      ).toThrow();
    });

    it('records which master key sealed it, by fingerprint only', async () => {
      await createTenant('sealed-key-id');

      const row = await didRowOf('sealed-key-id');

      expect(row.master_key_id).toBe(vault().masterKeyId);
      const masterKey = Buffer.from(service.masterKey, 'base64');
      const stored = JSON.stringify(row);
      for (const form of [
        service.masterKey,
        masterKey.toString('hex'),
        masterKey.toString('base64url'),
      ]) {
        expect(stored).not.toContain(form);
      }
    });

    it('keeps the master key out of the configuration every provider is given', () => {
      const masterKey = Buffer.from(service.masterKey, 'base64');
      const given = service.app.get(Settings);
      expect(given.PUBLIC_BASE_URL).toBe(service.settings.PUBLIC_BASE_URL);
      for (const config of [given, service.settings]) {
        const serialized = JSON.stringify(config);
        for (const form of [
          service.masterKey,
          masterKey.toString('hex'),
          masterKey.toString('base64url'),
          JSON.stringify([...masterKey]).slice(1, -1),
        ]) {
          expect(serialized).not.toContain(form);
        }
      }
      // Only the vault has it: it opens what was sealed under that key.
      expect(service.app.get(KeyVault).masterKeyId).toBe(vault().masterKeyId);
    });
  });

  describe('deleting the tenant', () => {
    it('removes its DID and sealed key, and a tenant made again with that id gets a new DID', async () => {
      const tenant = await createTenant('short-lived');
      const oldRow = await didRowOf('short-lived');

      const deleted = await request('/ctrl/api/v1.0/tenants/short-lived/delete', {
        method: 'POST',
      });

      expect(deleted.status).toBe(204);
      expect(
        await queryDatabase(
          service.databaseUrl,
          'SELECT 1 FROM tenant_did WHERE tenant_id = $1 OR did = $2 OR public_key = $3',
          ['short-lived', tenant.did, oldRow.public_key],
        ),
      ).toEqual([]);
      expectProblem(await getDid('short-lived'), 404, 'TENANT_NOT_FOUND', didPath);
      // Its ES256 key goes with it.
      expect(
        await queryDatabase(
          service.databaseUrl,
          'SELECT 1 FROM tenant_signing_key WHERE tenant_id = $1',
          ['short-lived'],
        ),
      ).toEqual([]);

      const again = await createTenant('short-lived');
      expect(again.did).not.toBe(tenant.did);
    });
  });

  describe('a migration that changes the type of a column GET /did reads', () => {
    it('does not interrupt GET /did on connections that prepared the read before it', async () => {
      const tenant = await createTenant('migrated');
      // Enough requests at once that several pool connections prepare the read.
      const readAll = () => Promise.all(Array.from({ length: 24 }, () => getDid('migrated')));
      for (const response of await readAll()) expect(response.status).toBe(200);

      // As a new version's migration might, while this instance keeps running. Not the DID's column: a
      // published function reads it (tenant_did_key_of), and PostgreSQL refuses to retype it under one.
      await queryDatabase(
        service.databaseUrl,
        'ALTER TABLE tenant_did ALTER COLUMN created_at TYPE timestamptz(3)',
      );
      try {
        for (const response of await readAll()) {
          expect(response.status).toBe(200);
          expect(response.body.id).toBe(tenant.did);
        }
      } finally {
        await queryDatabase(
          service.databaseUrl,
          'ALTER TABLE tenant_did ALTER COLUMN created_at TYPE timestamptz',
        );
      }
    });
  });

  describe('key material in responses', () => {
    it('never appears in any response of this file, in hex, base64, base64url or base58', async () => {
      // Exercise every endpoint once more, successes and failures, so the check does not rely on order.
      await createTenant('leak-check');
      await getDid('leak-check');
      await request(documentPath, { headers: { 'x-tenant-id': 'leak-check' } });
      await request('/ctrl/api/v1.0/tenants/leak-check');
      await request('/ctrl/api/v1.0/tenants');
      await request(didPath, { headers: { 'x-tenant-id': 'leak check' } });

      const rows = await queryDatabase<DidRow>(service.databaseUrl, 'SELECT * FROM tenant_did');
      expect(rows.length).toBeGreaterThanOrEqual(1);
      const forms = rows.flatMap((row) =>
        leakFormsOf(
          vault().open(row.tenant_id, row.private_key_sealed, didKeyPurpose),
          row.public_key,
        ),
      );
      // The tenants' ES256 private keys as well (test/did-signing-keys.e2e-spec.ts).
      const es256Rows = await queryDatabase<{ tenant_id: string; private_key_sealed: Buffer }>(
        service.databaseUrl,
        'SELECT tenant_id, private_key_sealed FROM tenant_signing_key',
      );
      expect(es256Rows.length).toBe(rows.length);
      for (const row of es256Rows) {
        const d = vault().open(row.tenant_id, row.private_key_sealed, signingKeyPurpose);
        forms.push(
          d.toString('hex'),
          d.toString('base64'),
          d.toString('base64url'),
          base58.encode(d),
        );
      }
      const masterKey = Buffer.from(service.masterKey, 'base64');
      forms.push(service.masterKey, masterKey.toString('hex'), masterKey.toString('base64url'));

      expect(responses.length).toBeGreaterThanOrEqual(6);
      // One expectation over every pair: the leaks, if any, named by where they appeared.
      const leaks = responses.flatMap((response, index) => {
        const headers = JSON.stringify([...response.headers.entries()]);
        return forms
          .filter((form) => response.text.includes(form) || headers.includes(form))
          .map((form) => `response ${index}: ${form.slice(0, 8)}…`);
      });
      expect(leaks).toEqual([]);
    });
  });
});
