import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type Settings } from '../config/settings.js';
import { issueLeaf, makeDevelopmentAuthority, type AuthorityMaterial } from '../x509/authority.js';
import { parseDer } from '../x509/certificate.js';
import { issueDocumentSigner } from '../x509/document-signer.js';
import { x509 } from '../x509/x509.js';
import {
  certificateRow,
  fakeCertificateRepository,
  fakeTenantKeys,
} from '../../test/support/certificate-fakes.js';
import {
  codeOf,
  fakeOutbox,
  fakeTransactions,
  testClock,
} from '../../test/support/service-fakes.js';
import {
  type CertificateAuthorityService,
  type CurrentAuthority,
} from './certificate-authority.service.js';
import { CertificatesService } from './certificates.service.js';

const day = 86_400_000;

/** The service without a database: the table is an array, the authority a real one in memory. */
describe(CertificatesService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const settings = {
    PUBLIC_BASE_URL: 'https://agent.example.com',
    CERTIFICATE_VALIDITY_DAYS: 365,
    MDOC_ISSUER_COUNTRY: 'DE',
  } as Settings;
  let material: AuthorityMaterial;

  beforeAll(async () => {
    material = await makeDevelopmentAuthority(
      'Test CA',
      new Date(Date.UTC(2025, 0, 1)),
      new Date(Date.UTC(2035, 0, 1)),
    );
  });

  afterEach(() => jest.restoreAllMocks());

  function newService(options: { authority: boolean }) {
    const time = testClock(Date.UTC(2026, 0, 1));
    const certificates = fakeCertificateRepository(time.clock);
    const transactions = fakeTransactions();
    const outbox = fakeOutbox();
    const { tenantKeys, tenants } = fakeTenantKeys(['acme']);
    const audited: string[] = [];
    const current: CurrentAuthority = {
      id: 'authority',
      source: 'development',
      chain: material.chain,
      root: material.chain[0],
    };
    const authority = {
      current: () => Promise.resolve(options.authority ? current : undefined),
      issue: async (profile: Parameters<typeof issueLeaf>[1]) =>
        options.authority
          ? { leaf: await issueLeaf(material, profile), authority: current }
          : undefined,
      issueDocumentSigner: async (
        profile: Omit<Parameters<typeof issueDocumentSigner>[1], 'crlUri'>,
      ) =>
        options.authority
          ? {
              leaf: await issueDocumentSigner(material, { ...profile, crlUri: 'https://crl' }),
              authority: current,
            }
          : undefined,
    } as unknown as CertificateAuthorityService;
    const audit = {
      record: (action: string, _actor: Actor, tenantId: string) =>
        audited.push(`${action} ${tenantId}`),
    } as unknown as AuditLog;
    const service = new CertificatesService(
      transactions.dataSource,
      time.clock,
      settings,
      audit,
      certificates.repository,
      authority,
      tenantKeys,
      tenants,
      outbox.outbox,
    );
    return { service, time, certificates, transactions, outbox, audited };
  }

  describe('documentSignerChain', () => {
    it('issues a document signer on first need beside the x5c chain, which it leaves alone', async () => {
      const { service, certificates } = newService({ authority: true });
      jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      certificates.rows.push(certificateRow({ id: 'c1', tenantId: 'acme', x5c: ['STORED'] }));
      const chain = await service.documentSignerChain('acme');
      expect(chain).toHaveLength(1);
      const ds = new x509.X509Certificate(Buffer.from(chain![0], 'base64'));
      expect(ds.subject).toBe('C=DE, CN=acme');
      expect(ds.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual(['1.0.18013.5.1.2']);
      expect(await service.activeChain('acme')).toEqual(['STORED']);
      expect(await service.documentSignerChain('acme')).toEqual(chain);
      expect(certificates.rows.map((row) => [row.purpose, row.status])).toEqual([
        ['x5c', 'active'],
        ['document_signer', 'active'],
      ]);
    });

    it('answers undefined without one or an authority', async () => {
      const { service } = newService({ authority: false });
      expect(await service.documentSignerChain('acme')).toBeUndefined();
    });
  });

  describe('activeChain', () => {
    it('answers the stored active chain while it is valid, issuing nothing', async () => {
      const { service, certificates } = newService({ authority: true });
      certificates.rows.push(certificateRow({ id: 'c1', tenantId: 'acme', x5c: ['STORED'] }));
      expect(await service.activeChain('acme')).toEqual(['STORED']);
      expect(certificates.steps).toEqual([]);
    });

    it('answers the certificate its caller read while it is valid, and looks again once it is not', async () => {
      const { service } = newService({ authority: false });
      const read = { x5c: ['READ'], notBefore: new Date(Date.UTC(2025, 0, 1)) };
      const valid = { ...read, notAfter: new Date(Date.UTC(2027, 0, 1)) };
      expect(await service.activeChain('acme', valid)).toEqual(['READ']);
      // Past its time (the clock is at 2026-01-01): not used; no stored one, no authority.
      const past = { ...read, notAfter: new Date(Date.UTC(2025, 6, 1)) };
      expect(await service.activeChain('acme', past)).toBeUndefined();
    });

    it('answers undefined without a certificate or an authority', async () => {
      const { service, certificates } = newService({ authority: false });
      expect(await service.activeChain('acme')).toBeUndefined();
      expect(certificates.rows).toEqual([]);
    });

    it('issues on first need: the leaf alone (the root left out), naming the issuer URL and host', async () => {
      const { service, certificates } = newService({ authority: true });
      const logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      const x5c = await service.activeChain('acme');
      // No caller asked: a log line, not an audit line, says it appeared.
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ event: 'certificate.issued-on-need', tenantId: 'acme' }),
      );
      logged.mockRestore();
      expect(x5c).toHaveLength(1);
      const leaf = parseDer(Buffer.from(x5c![0], 'base64')).facts;
      expect(leaf).toMatchObject({
        subject: 'CN=acme',
        issuer: 'CN=Test CA',
        uris: ['https://agent.example.com/ctrl/oid4vci/acme'],
        dnsNames: ['agent.example.com'],
        digitalSignature: true,
        ca: false,
        notBefore: new Date(Date.UTC(2026, 0, 1)),
        notAfter: new Date(Date.UTC(2026, 0, 1) + 365 * day),
      });
      expect(certificates.steps).toEqual(['lock acme', 'insert authority']);
      expect(await service.activeChain('acme')).toEqual(x5c);
    });

    it('replaces an active certificate past its time, marking it expired with its event', async () => {
      const { service, certificates, outbox, time } = newService({ authority: true });
      jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      certificates.rows.push(
        certificateRow({ id: 'old', tenantId: 'acme', notAfter: new Date(time.clock() - 1) }),
      );
      const x5c = await service.activeChain('acme');
      expect(x5c).not.toEqual(['AAAA']);
      expect(certificates.rows.map(({ id, status }) => [id, status])).toEqual([
        ['old', 'expired'],
        [expect.any(String), 'active'],
      ]);
      expect(outbox.events).toEqual([
        {
          type: 'certificate.expired',
          tenantId: 'acme',
          data: { certificateId: 'old', notAfter: new Date(time.clock() - 1).toISOString() },
        },
      ]);
    });

    it('keeps the leaf a concurrent first need activated while it waited, though that leaf starts later', async () => {
      const { service, certificates, time } = newService({ authority: true });
      jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
      const lock = certificates.repository.lock.bind(certificates.repository);
      jest.spyOn(certificates.repository, 'lock').mockImplementation(async (manager, tenantId) => {
        // The other first need signed a second later and committed before this one got the lock.
        time.advance(1_500);
        certificates.rows.push(
          certificateRow({
            id: 'concurrent',
            tenantId: 'acme',
            x5c: ['CONCURRENT'],
            notBefore: new Date(time.clock() - 500),
          }),
        );
        return lock(manager, tenantId);
      });
      expect(await service.activeChain('acme')).toEqual(['CONCURRENT']);
      expect(certificates.rows.map(({ id, status }) => [id, status])).toEqual([
        ['concurrent', 'active'],
      ]);
    });

    it('refuses an unknown tenant', async () => {
      const { service } = newService({ authority: true });
      expect(await codeOf(service.activeChain('nobody'))).toBe('TENANT_NOT_FOUND');
    });
  });

  describe('issue', () => {
    it('supersedes the active certificate with a new one from the authority, audited', async () => {
      const { service, certificates, audited, transactions } = newService({ authority: true });
      certificates.rows.push(certificateRow({ id: 'c1', tenantId: 'acme' }));
      const issued = await service.issue('acme', actor);
      expect(issued).toMatchObject({ status: 'active', source: 'authority', subject: 'CN=acme' });
      expect(certificates.rows.map(({ status }) => status)).toEqual(['superseded', 'active']);
      expect(audited).toEqual(['certificate.issue acme']);
      expect(transactions.log).toEqual(['begin', 'commit']);
    });

    it('refuses without an authority (409), changing nothing', async () => {
      const { service, certificates, audited } = newService({ authority: false });
      certificates.rows.push(certificateRow({ id: 'c1', tenantId: 'acme' }));
      expect(await codeOf(service.issue('acme', actor))).toBe(
        'CERTIFICATE_AUTHORITY_NOT_CONFIGURED',
      );
      expect(certificates.rows.map(({ status }) => status)).toEqual(['active']);
      expect(audited).toEqual([]);
      expect(await codeOf(service.authorityCertificate('acme'))).toBe(
        'CERTIFICATE_AUTHORITY_NOT_CONFIGURED',
      );
    });

    it('refuses an unknown tenant', async () => {
      const { service } = newService({ authority: true });
      expect(await codeOf(service.issue('nobody', actor))).toBe('TENANT_NOT_FOUND');
    });
  });

  it('lists the tenant’s certificates newest first, and shows the authority’s root', async () => {
    const { service, certificates } = newService({ authority: true });
    certificates.rows.push(
      certificateRow({ id: 'a', tenantId: 'acme', status: 'superseded' }),
      certificateRow({ id: 'b', tenantId: 'acme' }),
    );
    const page = await service.list('acme', { page: 0, size: 20 });
    expect(page.content.map(({ id }) => id)).toEqual(['b', 'a']);
    expect(page.totalElements).toBe(2);
    const { certificate } = await service.authorityCertificate('acme');
    expect(certificate).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
  });
});
