import { base58 } from '@scure/base';
import { calculateJwkThumbprint } from 'jose';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { signingKeyPurpose } from '../src/did/did.sealed-columns.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { type PublicJwk } from '../src/did/tenant-signing-key.entity.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { queryDatabase } from './support/database.js';
import { es256Jws, verifiedByJose } from './support/signing-keys.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';

interface SigningKeyRow {
  id: string;
  tenant_id: string;
  kid: string;
  algorithm: string;
  public_jwk: PublicJwk;
  private_key_sealed: Buffer;
  master_key_id: string;
}

interface LogLine {
  event?: string;
  tenantId?: string;
}

/** Every textual form in which a P-256 private scalar could leak. */
function leakFormsOf(d: Buffer): string[] {
  return [
    d.toString('hex'),
    d.toString('hex').toUpperCase(),
    d.toString('base64'),
    d.toString('base64url'),
    base58.encode(d),
  ];
}

/** The ES256 key beside each tenant's DID key (docs/architecture.md, A tenant's signing keys). */
describe("A tenant's ES256 signing key", () => {
  let service: TestService;
  let keys: TenantKeys;
  const lines: string[] = [];
  /** Every response of the service in this file, to search them all for key material at the end. */
  const responses: ApiResponse[] = [];

  async function request(path: string, options?: Parameters<TestService['request']>[1]) {
    const response = await service.request(path, options);
    responses.push(response);
    return response;
  }

  async function createTenant(id: string): Promise<void> {
    const response = await request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id, label: `Tenant ${id}` },
    });
    expect(response.status).toBe(201);
  }

  const rowsOf = (tenantId: string) =>
    queryDatabase<SigningKeyRow>(
      service.databaseUrl,
      'SELECT * FROM tenant_signing_key WHERE tenant_id = $1',
      [tenantId],
    );

  const vault = () => new KeyVault(Buffer.from(service.masterKey, 'base64'));

  beforeAll(async () => {
    service = await startTestService({ logDestination: { write: (line) => lines.push(line) } });
    keys = service.app.get(TenantKeys);
  });

  afterAll(async () => {
    await service.close();
  });

  it('is made with the tenant; its signature verifies with jose, its kid is the JWK thumbprint', async () => {
    await createTenant('es-new');
    const [row, ...others] = await rowsOf('es-new');
    expect(others).toEqual([]);
    expect(row).toMatchObject({ algorithm: 'ES256', master_key_id: vault().masterKeyId });

    const key = await keys.es256SigningKey('es-new');
    expect(key.publicJwk).toEqual(row.public_jwk);
    expect(key.kid).toBe(row.kid);
    expect(key.kid).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    const jws = await es256Jws(key, { iss: 'es-new', vct: 'https://example.com/vct' });
    expect(await verifiedByJose(jws, key.publicJwk)).toEqual({
      iss: 'es-new',
      vct: 'https://example.com/vct',
    });
    // A JOSE signature is r || s, not DER.
    expect(Buffer.from(jws.split('.')[2], 'base64url')).toHaveLength(64);

    // The ES256 key, then the DID's Ed25519 key (EdDSA, docs/oid4vci.md#keys).
    expect(await keys.publicKeys('es-new')).toEqual([
      { kid: key.kid, alg: 'ES256', publicJwk: key.publicJwk },
      {
        kid: (await keys.eddsaSigningKey('es-new')).kid,
        alg: 'EdDSA',
        publicJwk: expect.objectContaining({ kty: 'OKP' }),
      },
    ]);
  });

  it('is stored sealed for its tenant, opening to the private key of its public JWK', async () => {
    await createTenant('es-sealed');
    const [row] = await rowsOf('es-sealed');
    const d = vault().open('es-sealed', row.private_key_sealed, signingKeyPurpose);
    expect(row.private_key_sealed.indexOf(d)).toBe(-1);
    const privateKey = createPrivateKey({
      key: { ...row.public_jwk, d: d.toString('base64url') },
      format: 'jwk',
    });
    expect(createPublicKey(privateKey).export({ format: 'jwk' })).toEqual(row.public_jwk);
    expect(() => vault().open('es-new', row.private_key_sealed, signingKeyPurpose)).toThrow();
  });

  it('is made on first use for a tenant without one, once, however many first uses run at once', async () => {
    await createTenant('es-old');
    await queryDatabase(
      service.databaseUrl,
      `DELETE FROM tenant_signing_key WHERE tenant_id = 'es-old'`,
    );
    const before = lines.length;

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => keys.es256SigningKey('es-old')),
    );

    const rows = await rowsOf('es-old');
    expect(rows).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.kid))).toEqual(new Set([rows[0].kid]));
    const jws = await es256Jws(answers[7], { sub: 'es-old' });
    expect(await verifiedByJose(jws, rows[0].public_jwk)).toEqual({ sub: 'es-old' });
    const created = lines
      .slice(before)
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.event === 'signing-key.created');
    expect(created).toEqual([expect.objectContaining({ tenantId: 'es-old' })]);
    // The public keys answer the same key, without another.
    const es256 = (await keys.publicKeys('es-old')).filter((key) => key.alg === 'ES256');
    expect(es256.map((key) => key.kid)).toEqual([rows[0].kid]);
  });

  it("is each tenant's own: another tenant's key never signs for it", async () => {
    await createTenant('es-mine');
    await createTenant('es-theirs');
    const [mine, theirs] = await Promise.all([
      keys.es256SigningKey('es-mine'),
      keys.es256SigningKey('es-theirs'),
    ]);
    expect(mine.kid).not.toBe(theirs.kid);
    const jws = await es256Jws(mine, { sub: 'es-mine' });
    await expect(verifiedByJose(jws, theirs.publicJwk)).rejects.toThrow();

    // Their sealed key copied into my row does not open as mine.
    await queryDatabase(
      service.databaseUrl,
      `UPDATE tenant_signing_key SET private_key_sealed =
         (SELECT private_key_sealed FROM tenant_signing_key WHERE tenant_id = 'es-theirs')
        WHERE tenant_id = 'es-mine'`,
    );
    const swapped = await keys.es256SigningKey('es-mine');
    await expect(swapped.sign(new Uint8Array([1]))).rejects.toThrow();
    await queryDatabase(
      service.databaseUrl,
      `DELETE FROM tenant_signing_key WHERE tenant_id = 'es-mine'`,
    );
  });

  it('answers TENANT_NOT_FOUND for a tenant that does not exist, and writes nothing', async () => {
    await expect(keys.es256SigningKey('es-nobody')).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    await expect(keys.publicKeys('es-nobody')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(await rowsOf('es-nobody')).toEqual([]);
  });

  it('is deleted with its tenant', async () => {
    await createTenant('es-gone');
    expect(await rowsOf('es-gone')).toHaveLength(1);
    const deleted = await request('/ctrl/api/v1.0/tenants/es-gone/delete', { method: 'POST' });
    expect(deleted.status).toBe(204);
    expect(await rowsOf('es-gone')).toEqual([]);
  });

  it('never appears in a response or a log line, in hex, base64, base64url or base58', async () => {
    await createTenant('es-leak');
    await keys.es256SigningKey('es-leak').then((key) => key.sign(new Uint8Array([1, 2, 3])));
    for (const id of ['es-leak', 'es-old']) {
      await request('/ctrl/api/v1.0/did', { headers: { 'x-tenant-id': id } });
      await request('/ctrl/api/v1.0/did/document', { headers: { 'x-tenant-id': id } });
      await request(`/ctrl/api/v1.0/tenants/${id}`);
    }
    await request('/ctrl/api/v1.0/tenants');

    const rows = await queryDatabase<SigningKeyRow>(
      service.databaseUrl,
      'SELECT * FROM tenant_signing_key',
    );
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const forms = rows.flatMap((row) =>
      leakFormsOf(vault().open(row.tenant_id, row.private_key_sealed, signingKeyPurpose)),
    );
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(10);
    expect(responses.length).toBeGreaterThanOrEqual(15);
    for (const form of forms) {
      expect(log).not.toContain(form);
      for (const response of responses) {
        expect(response.text).not.toContain(form);
        expect(JSON.stringify([...response.headers.entries()])).not.toContain(form);
      }
    }
  });
});
