import { X509Certificate } from 'node:crypto';
import { Client } from 'pg';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  makeCa,
  newKeys,
  pemChain,
  selfSignedLeaf,
  signLeaf,
  x509,
  type Issuer,
} from './support/x509-test-ca.js';

const base = '/ctrl/api/v1.0/certificates';
const day = 86_400_000;

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

    it('makes a CSR the tenant’s key signed, naming its issuer URL and host by default', async () => {
      const request = new x509.Pkcs10CertificateRequest(csr);
      expect(await request.verify()).toBe(true);
      expect(request.subject).toBe('CN=imports');
      const san = request.extensions.find(
        (extension) => extension instanceof x509.SubjectAlternativeNameExtension,
      ) as x509.SubjectAlternativeNameExtension;
      expect(san.names.toJSON()).toEqual([
        { type: 'dns', value: 'localhost' },
        { type: 'url', value: issuerUrl() },
      ]);
      const key = await service.app.get(TenantKeys).es256SigningKey('imports');
      const requested = new X509Certificate(
        (await signLeaf(root, csr)).toString('pem'),
      ).publicKey.export({ format: 'jwk' });
      expect(requested).toMatchObject({ x: key.publicJwk.x, y: key.publicJwk.y });

      const named = await call<{ csr: string }>('/csr', 'imports', {
        subject: 'ACME Issuing',
        dnsNames: ['issuer.example.com'],
        uris: ['https://issuer.example.com/x'],
      });
      const custom = new x509.Pkcs10CertificateRequest(named.body.csr);
      expect(await custom.verify()).toBe(true);
      expect(custom.subject).toBe('CN=ACME Issuing');
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

    describe('refuses, changing nothing', () => {
      const expectRefused = async (
        chain: string | Promise<string>,
        status: number,
        code: string,
        says: RegExp,
      ) => {
        const before = await list('imports');
        const answer = await importChain('imports', await chain);
        const problem = expectProblem(answer, status, code, `${base}/import`);
        expect(problem.detail).toMatch(says);
        expect(await list('imports')).toEqual(before);
      };

      it('text that is not PEM, a PEM block that is not X.509, a private key', async () => {
        await expectRefused('hello', 400, 'CERTIFICATE_CHAIN_MALFORMED', /no PEM CERTIFICATE/);
        await expectRefused(
          '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
          400,
          'CERTIFICATE_CHAIN_MALFORMED',
          /not an X.509 certificate/,
        );
        await expectRefused(
          await intermediate.keyPem(),
          400,
          'CERTIFICATE_CHAIN_MALFORMED',
          /PRIVATE KEY, not a CERTIFICATE/,
        );
      });

      it('more than 10 certificates, or more than 64 KiB', async () => {
        const leaf = await signLeaf(intermediate, csr);
        await expectRefused(
          pemChain(...Array.from({ length: 11 }, () => leaf)),
          400,
          'CERTIFICATE_CHAIN_MALFORMED',
          /at most 10 certificates/,
        );
        const huge = await importChain('imports', 'x'.repeat(64 * 1024 + 1));
        expectProblem(huge, 400, 'VALIDATION_FAILED', `${base}/import`);
      });

      it('a leaf for another key than the tenant’s', async () => {
        const other = await newKeys();
        const publicKey = await x509.PublicKey.create(other.publicKey);
        await expectRefused(
          pemChain(await signLeaf(intermediate, csr, { publicKey }), intermediate.certificate),
          422,
          'CERTIFICATE_KEY_MISMATCH',
          /another key than the tenant/,
        );
      });

      it('a self-signed leaf', async () => {
        await expectRefused(
          pemChain(await selfSignedLeaf(issuerUrl())),
          422,
          'CERTIFICATE_SELF_SIGNED',
          /self-signed/,
        );
      });

      it('a leaf expired or not yet valid, an intermediate expired', async () => {
        const expired = await signLeaf(intermediate, csr, {
          notBefore: new Date(Date.now() - 10 * day),
          notAfter: new Date(Date.now() - day),
        });
        await expectRefused(
          pemChain(expired, intermediate.certificate),
          422,
          'CERTIFICATE_NOT_VALID_NOW',
          /Certificate 1 of the chain .* not now/,
        );
        const early = await signLeaf(intermediate, csr, {
          notBefore: new Date(Date.now() + day),
          notAfter: new Date(Date.now() + 2 * day),
        });
        await expectRefused(pemChain(early), 422, 'CERTIFICATE_NOT_VALID_NOW', /not now/);
      });

      it('links that do not verify: the wrong issuer, or the intermediate left out before the root', async () => {
        const stranger = await makeCa('Stranger');
        const leaf = await signLeaf(intermediate, csr);
        await expectRefused(
          pemChain(leaf, stranger.certificate),
          422,
          'CERTIFICATE_CHAIN_BROKEN',
          /Certificate 2 of the chain \(CN=Stranger\) is not a CA that issued certificate 1/,
        );
        await expectRefused(
          pemChain(leaf, root.certificate),
          422,
          'CERTIFICATE_CHAIN_BROKEN',
          /CN=Test root/,
        );
        // Signed by a key that is not the named issuer's.
        const forged = await signLeaf({ ...intermediate, privateKey: stranger.privateKey }, csr);
        await expectRefused(
          pemChain(forged, intermediate.certificate),
          422,
          'CERTIFICATE_CHAIN_BROKEN',
          /not a CA that issued/,
        );
      });

      it('a leaf whose keyUsage lacks digitalSignature, or that has none', async () => {
        for (const usages of [x509.KeyUsageFlags.keyAgreement, null]) {
          await expectRefused(
            pemChain(await signLeaf(intermediate, csr, { usages }), intermediate.certificate),
            422,
            'CERTIFICATE_PROFILE_UNSUITABLE',
            /digitalSignature/,
          );
        }
      });

      it('a leaf naming neither the issuer URL nor its host', async () => {
        const leaf = await signLeaf(intermediate, csr, {
          dnsNames: ['elsewhere.example'],
          uris: ['https://elsewhere.example/ctrl/oid4vci/imports'],
        });
        await expectRefused(
          pemChain(leaf, intermediate.certificate),
          422,
          'CERTIFICATE_PROFILE_UNSUITABLE',
          /names neither/,
        );
        // Either name is enough.
        const byHost = await signLeaf(intermediate, csr, { uris: [] });
        expect((await importChain('imports', pemChain(byHost))).status).toBe(201);
      });
    });

    describe('keeps tenants apart', () => {
      it('another tenant’s user cannot list, import, issue or ask for a CSR (403); an unknown tenant is 404', async () => {
        const leaf = pemChain(await signLeaf(intermediate, csr));
        for (const [path, body] of [
          ['', undefined],
          ['/csr', {}],
          ['/import', { chain: leaf }],
          ['/issue', {}],
          ['/authority', undefined],
        ] as const) {
          const foreign = await call(path, 'imports', body, 'demo');
          expectProblem(foreign, 403, 'FORBIDDEN', `${base}${path}`);
          const unknown = await call(path, 'nobody', body);
          expectProblem(unknown, 404, 'TENANT_NOT_FOUND', `${base}${path}`);
        }
        // The demo user's own tenant works.
        expect((await call('', 'demo', undefined, 'demo')).status).toBe(200);
      });

      it('a chain for one tenant’s key is refused for another', async () => {
        const leaf = await signLeaf(intermediate, csr, {
          uris: [`${service.publicBaseUrl}/ctrl/oid4vci/other`],
        });
        const answer = await importChain('other', pemChain(leaf, intermediate.certificate));
        expectProblem(answer, 422, 'CERTIFICATE_KEY_MISMATCH', `${base}/import`);
        expect((await list('other')).content.every(({ source }) => source === 'authority')).toBe(
          true,
        );
      });

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
});
