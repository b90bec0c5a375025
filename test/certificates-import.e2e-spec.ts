import { X509Certificate } from 'node:crypto';
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
 * A tenant's own CA over real HTTP and PostgreSQL: the CSR the service makes for the tenant's key, and
 * every reason an imported chain is refused, each changing nothing (a test CA made with @peculiar/x509);
 * tenants kept apart, tokens and headers refused.
 */
describe('Certificates from a CA of the tenant’s own', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['imports', 'other', 'demo']) {
      await service.client().createTenant({ id, label: id });
    }
  });
  afterAll(() => service?.close());

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

    // A name in any script is fine; a URI must be ASCII (IA5String), and a DNS name a DNS name.
    const accented = await call<{ csr: string }>('/csr', 'imports', { subject: 'Müller & Søn' });
    expect(new x509.Pkcs10CertificateRequest(accented.body.csr).subject).toContain('Müller');
    for (const body of [{ uris: ['https://exämple.test/'] }, { dnsNames: ['not a host'] }]) {
      const refused = await call('/csr', 'imports', body);
      expectProblem(refused, 400, 'VALIDATION_FAILED', `${base}/csr`);
    }
  });

  it('imports a leaf whose name holds a character PostgreSQL cannot store (U+0000), replaced', async () => {
    const leaf = await signLeaf(intermediate, csr, { commonName: 'nul\u0000name' });
    const answer = await call<{ subject: string }>('/import', 'imports', {
      chain: pemChain(leaf, intermediate.certificate),
    });
    expect(answer.status).toBe(201);
    expect(answer.body.subject).toBe('CN=nul\uFFFDname');
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

    it('a leaf expired or not yet valid', async () => {
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
  });
});
