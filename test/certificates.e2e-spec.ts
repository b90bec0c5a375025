import { X509Certificate } from 'node:crypto';
import { Client } from 'pg';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCa, pemChain, signLeaf, x509, type Issuer } from './support/x509-test-ca.js';

const base = '/ctrl/api/v1.0/certificates';

interface Certificate {
  id: string;
  status: string;
  source: string;
  subject: string;
  issuer: string;
  dnsNames: string[];
  uris: string[];
  x5c: string[];
}
interface Page {
  content: Certificate[];
  totalElements: number;
}

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
    for (const id of ['acme', 'race', 'other', 'demo', 'imports']) {
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
      const leaf = new x509.X509Certificate(Buffer.from(x5c![0], 'base64'));
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

  describe('a CA of the tenant’s own', () => {
    let root: Issuer;
    let intermediate: Issuer;
    let csr: string;
    const issuerUrl = () => `${service.publicBaseUrl}/ctrl/oid4vci/imports`;

    const call = <Body>(path: string, tenantId: string, body?: unknown, as?: 'admin' | 'demo') =>
      service.request<Body>(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        as,
        headers: { 'x-tenant-id': tenantId },
        body,
      });
    const importChain = (tenantId: string, chain: string) =>
      call<Certificate>('/import', tenantId, { chain });
    const list = async (tenantId: string) => (await call<Page>('', tenantId)).body;

    beforeAll(async () => {
      root = await makeCa('Test root');
      intermediate = await makeCa('Test intermediate', root);
      const answer = await call<{ csr: string }>('/csr', 'imports', {});
      expect(answer.status).toBe(201);
      csr = answer.body.csr;
    });

    it('imports the chain the CA signed: active, x5c without the root, the earlier one superseded', async () => {
      const before = await activeChain('imports');
      const leaf = await signLeaf(intermediate, csr);
      const answer = await importChain(
        'imports',
        pemChain(leaf, intermediate.certificate, root.certificate),
      );
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({
        status: 'active',
        source: 'imported',
        subject: 'CN=imports',
        issuer: 'CN=Test intermediate',
        uris: [issuerUrl()],
        dnsNames: ['localhost'],
      });
      const x5c = [leaf, intermediate.certificate].map((certificate) =>
        Buffer.from(certificate.rawData).toString('base64'),
      );
      expect(answer.body.x5c).toEqual(x5c);
      expect(await activeChain('imports')).toEqual(x5c);

      // The chain verifies up to the test root with an independent builder.
      const built = await new x509.X509ChainBuilder({
        certificates: [intermediate.certificate, root.certificate],
      }).build(leaf);
      expect(built.map((certificate) => certificate.subject)).toEqual([
        'CN=imports',
        'CN=Test intermediate',
        'CN=Test root',
      ]);

      const page = await list('imports');
      expect(page.content.map(({ status, source }) => `${status} ${source}`)).toEqual([
        'active imported',
        'superseded authority',
      ]);
      expect(page.content[1].x5c).toEqual(before);
    });
  });

  describe('the service’s authority', () => {
    it('issues a new active certificate on request, superseding the one before', async () => {
      const before = await activeChain('acme');
      const answer = await service.request<Certificate>(`${base}/issue`, {
        method: 'POST',
        headers: { 'x-tenant-id': 'acme' },
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toMatchObject({ status: 'active', source: 'authority' });
      expect(answer.body.x5c).not.toEqual(before);
      expect(await activeChain('acme')).toEqual(answer.body.x5c);
      expect(await activeRows('acme')).toHaveLength(1);
    });

    it('keeps one active certificate when two issues race', async () => {
      const issue = () =>
        service.request<Certificate>(`${base}/issue`, {
          method: 'POST',
          headers: { 'x-tenant-id': 'race' },
        });
      const answers = await Promise.all([issue(), issue(), issue()]);
      expect(answers.map(({ status }) => status)).toEqual([201, 201, 201]);
      expect(await activeRows('race')).toHaveLength(1);
      const page = await service.client().listCertificates('race');
      expect(page.content.filter(({ status }) => status === 'active')).toHaveLength(1);
    });

    it('shows its root, which verifies the tenants’ leaves', async () => {
      const answer = await service.request<{ certificate: string }>(`${base}/authority`, {
        headers: { 'x-tenant-id': 'acme' },
      });
      expect(answer.status).toBe(200);
      const root = new x509.X509Certificate(answer.body.certificate);
      expect(await root.isSelfSigned()).toBe(true);
      const leaf = new x509.X509Certificate((await activeChain('acme'))![0]);
      expect(await leaf.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
    });
  });

  describe('access', () => {
    it('refuses a missing or forged token (401) and a missing tenant header (400)', async () => {
      const anonymous = await service.request(base, {
        as: 'anonymous',
        headers: { 'x-tenant-id': 'imports' },
      });
      expectProblem(anonymous, 401, 'UNAUTHORIZED', base);
      const [header, payload, signature] = (await service.tokenFor('admin')).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as object;
      const forged = [
        header,
        Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url'),
        signature,
      ].join('.');
      const refused = await service.request(`${base}/issue`, {
        method: 'POST',
        token: forged,
        headers: { 'x-tenant-id': 'imports' },
      });
      expectProblem(refused, 401, 'UNAUTHORIZED', `${base}/issue`);
      const missing = await service.request(base);
      expectProblem(missing, 400, 'TENANT_HEADER_MISSING', base);
    });
  });
});
