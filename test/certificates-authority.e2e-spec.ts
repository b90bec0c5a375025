import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CertificateExpiry } from '../src/certificates/certificate-expiry.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCa, x509, type Issuer } from './support/x509-test-ca.js';

const base = '/ctrl/api/v1.0/certificates';
const day = 86_400_000;

/**
 * The service's certificate authority as the operator configures it: none (issuing is 409, activeChain
 * answers nothing), an intermediate CA from PEM files imported at start and kept sealed, and files
 * refused at start.
 */
describe('The certificate authority', () => {
  let root: Issuer;
  let intermediate: Issuer;
  let folder: string;

  beforeAll(async () => {
    root = await makeCa('Operator root');
    intermediate = await makeCa('Operator issuing CA', root);
    folder = mkdtempSync(join(tmpdir(), 'agent-ca-'));
    writeFileSync(
      join(folder, 'ca.pem'),
      `${intermediate.certificate.toString('pem')}\n${root.certificate.toString('pem')}`,
    );
    writeFileSync(join(folder, 'ca.key'), await intermediate.keyPem());
    writeFileSync(join(folder, 'other.key'), await root.keyPem());
  });

  describe('none configured', () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService({ env: { CERTIFICATE_AUTHORITY_DEVELOPMENT: 'false' } });
      await service.client().createTenant({ id: 'acme', label: 'Acme' });
    });
    afterAll(() => service?.close());

    it('answers 409 to issue and to the authority, saying how to configure one; activeChain has none', async () => {
      for (const [path, method] of [
        ['/issue', 'POST'],
        ['/authority', 'GET'],
      ] as const) {
        const answer = await service.request(`${base}${path}`, {
          method,
          headers: { 'x-tenant-id': 'acme' },
        });
        const problem = expectProblem(
          answer,
          409,
          'CERTIFICATE_AUTHORITY_NOT_CONFIGURED',
          `${base}${path}`,
        );
        expect(problem.detail).toMatch(/CERTIFICATE_AUTHORITY_CERT_FILE/);
      }
      expect(await service.app.get(CertificatesService).activeChain('acme')).toBeUndefined();
      const page = await service.client().listCertificates('acme');
      expect(page.totalElements).toBe(0);
    });
  });

  describe('configured from files', () => {
    let service: TestService;
    let db: Client;
    // The service's clock: the expiry test, last, moves it a year on.
    let now = Date.now();

    beforeAll(async () => {
      service = await startTestService({
        env: {
          CERTIFICATE_AUTHORITY_CERT_FILE: join(folder, 'ca.pem'),
          CERTIFICATE_AUTHORITY_KEY_FILE: join(folder, 'ca.key'),
        },
        clock: () => now,
      });
      db = new Client({ connectionString: service.databaseUrl });
      await db.connect();
      await service.client().createTenant({ id: 'acme', label: 'Acme' });
      await service.client().createTenant({ id: 'expiring', label: 'Expiring' });
    });
    afterAll(async () => {
      await db?.end();
      await service?.close();
    });

    it('issues leaves under the intermediate: x5c is leaf and intermediate, the root is the anchor', async () => {
      const issued = await service.client().issueCertificate('acme');
      expect(issued).toMatchObject({ status: 'active', source: 'authority' });
      expect(issued.issuer).toBe('CN=Operator issuing CA');
      expect(issued.x5c).toHaveLength(2);
      expect(issued.x5c[1]).toBe(Buffer.from(intermediate.certificate.rawData).toString('base64'));
      const { certificate } = await service.client().getCertificateAuthority('acme');
      expect(new x509.X509Certificate(certificate).subject).toBe('CN=Operator root');
      const leaf = new x509.X509Certificate(issued.x5c[0]);
      const built = await new x509.X509ChainBuilder({
        certificates: [intermediate.certificate, new x509.X509Certificate(certificate)],
      }).build(leaf);
      expect(built).toHaveLength(3);
    });

    it('keeps the key sealed under the master key, never in the clear', async () => {
      const { rows } = await db.query<{ source: string; sealed: Buffer }>(
        'SELECT source, private_key_sealed AS sealed FROM certificate_authority WHERE current',
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].source).toBe('configured');
      const pkcs8 = Buffer.from(
        (await intermediate.keyPem()).replace(/-----[^-]+-----|\s/g, ''),
        'base64',
      );
      expect(rows[0].sealed.includes(pkcs8.subarray(-32))).toBe(false);
    });

    describe('expiry, on the service’s clock', () => {
      const activeChain = (tenantId: string) =>
        service.app.get(CertificatesService).activeChain(tenantId);
      const activeRows = async (tenantId: string) =>
        (
          await db.query<{ id: string }>(
            `SELECT id FROM tenant_certificate WHERE tenant_id = $1 AND status = 'active'`,
            [tenantId],
          )
        ).rows;
      const eventsOf = async (tenantId: string) =>
        (
          await db.query<{ type: string; body: string }>(
            `SELECT type, body FROM webhook_event WHERE tenant_id = $1 AND type LIKE 'certificate.%'
              ORDER BY created_at, id`,
            [tenantId],
          )
        ).rows.map(({ type, body }) => ({
          type,
          data: (JSON.parse(body) as { data: Record<string, string> }).data,
        }));

      it('announces the active certificate once within 30 days, expires it once past its time, and issues anew from the configured authority on need', async () => {
        const expiry = service.app.get(CertificateExpiry);
        const first = await activeChain('expiring');
        const [{ id }] = await activeRows('expiring');
        const notAfter = new x509.X509Certificate(first![0]).notAfter.toISOString();

        now += 340 * day;
        await expiry.runOnce();
        await expiry.runOnce();
        expect(await eventsOf('expiring')).toEqual([
          { type: 'certificate.expiring', data: { certificateId: id, notAfter } },
        ]);

        now += 30 * day;
        await expiry.runOnce();
        await expiry.runOnce();
        expect(await eventsOf('expiring')).toEqual([
          { type: 'certificate.expiring', data: { certificateId: id, notAfter } },
          { type: 'certificate.expired', data: { certificateId: id, notAfter } },
        ]);
        const { rows } = await db.query<{ status: string }>(
          'SELECT status FROM tenant_certificate WHERE id = $1',
          [id],
        );
        expect(rows).toEqual([{ status: 'expired' }]);
        expect(await activeRows('expiring')).toEqual([]);

        const renewed = await activeChain('expiring');
        expect(renewed).not.toEqual(first);
        expect(await activeRows('expiring')).toHaveLength(1);
      });
    });
  });

  it('refuses to start with a key that is not the certificate’s, or only one of the two files', async () => {
    await expect(
      startTestService({
        env: {
          CERTIFICATE_AUTHORITY_CERT_FILE: join(folder, 'ca.pem'),
          CERTIFICATE_AUTHORITY_KEY_FILE: join(folder, 'other.key'),
        },
      }),
    ).rejects.toThrow(/refused: The private key is not the authority certificate’s key/);
    await expect(
      startTestService({ env: { CERTIFICATE_AUTHORITY_CERT_FILE: join(folder, 'ca.pem') } }),
    ).rejects.toThrow(/set both or neither/);
  });
});
