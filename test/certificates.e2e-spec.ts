import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto, X509Certificate } from 'node:crypto';
import { Client } from 'pg';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { startTestService, type TestService } from './support/test-service.js';

x509.cryptoProvider.set(webcrypto as never);

/**
 * Tenants' X.509 certificates over real HTTP and PostgreSQL: the development authority certifies every
 * tenant's ES256 key on first need (checked with @peculiar/x509 and node:crypto, not the service's code).
 */
describe('Certificates', () => {
  let service: TestService;
  let db: Client;

  beforeAll(async () => {
    service = await startTestService();
    db = new Client({ connectionString: service.databaseUrl });
    await db.connect();
    for (const id of ['acme', 'race', 'other']) {
      await service.client().createTenant({ id, label: id });
    }
  });
  afterAll(async () => {
    await db?.end();
    await service?.close();
  });

  const activeChain = (tenantId: string) =>
    service.app.get(CertificatesService).activeChain(tenantId);
  const activeRows = async (tenantId: string) =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM tenant_certificate WHERE tenant_id = $1 AND status = 'active'`,
        [tenantId],
      )
    ).rows;

  describe('activeChain', () => {
    it('certifies the tenant’s ES256 key on first need: leaf first, no root, the issuer URL and host named', async () => {
      const x5c = await activeChain('acme');
      expect(x5c).toHaveLength(1);
      expect(x5c![0]).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const leaf = new x509.X509Certificate(Buffer.from(x5c![0]!, 'base64'));
      expect(leaf.subject).toBe('CN=acme');
      const names = leaf.getExtension(x509.SubjectAlternativeNameExtension)!.names.toJSON();
      expect(names).toEqual(
        expect.arrayContaining([
          { type: 'dns', value: 'localhost' },
          { type: 'url', value: `${service.publicBaseUrl}/ctrl/oid4vci/acme` },
        ]),
      );
      const usage = leaf.getExtension(x509.KeyUsagesExtension)!;
      expect(usage.usages & x509.KeyUsageFlags.digitalSignature).toBeTruthy();
      expect(leaf.getExtension(x509.SubjectKeyIdentifierExtension)).not.toBeNull();
      expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)).not.toBeNull();
      expect(await leaf.isSelfSigned()).toBe(false);

      const key = await service.app.get(TenantKeys).es256SigningKey('acme');
      const certified = new X509Certificate(Buffer.from(leaf.rawData)).publicKey.export({
        format: 'jwk',
      });
      expect(certified).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: key.publicJwk.x,
        y: key.publicJwk.y,
      });

      // Signed by the development authority's root, which the chain leaves out.
      const authority = await service.app.get(CertificateAuthorityService).current();
      const root = new x509.X509Certificate(authority!.root!);
      expect(await leaf.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
      expect(leaf.issuer).toBe(root.subject);

      // The same chain again, from the table.
      expect(await activeChain('acme')).toEqual(x5c);
      expect(await activeRows('acme')).toHaveLength(1);
    });

    it('keeps one certificate when two first needs race', async () => {
      const [first, second] = await Promise.all([activeChain('race'), activeChain('race')]);
      expect(first).toEqual(second);
      expect(await activeRows('race')).toHaveLength(1);
    });

    it('refuses a tenant that does not exist (TENANT_NOT_FOUND)', async () => {
      await expect(activeChain('nobody')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    });
  });
});
