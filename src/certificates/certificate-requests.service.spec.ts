import { createPublicKey } from 'node:crypto';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type Settings } from '../config/settings.js';
import { issueLeaf, makeDevelopmentAuthority, type AuthorityMaterial } from '../x509/authority.js';
import { pemOf, publicJwkOfCertificate } from '../x509/certificate.js';
import { documentSignerKeyPurpose, issueDocumentSigner } from '../x509/document-signer.js';
import { x509 } from '../x509/x509.js';
import { fakeCertificateRepository, fakeTenantKeys } from '../../test/support/certificate-fakes.js';
import {
  codeOf,
  fakeOutbox,
  fakeTransactions,
  testClock,
} from '../../test/support/service-fakes.js';
import { type CertificateAuthorityService } from './certificate-authority.service.js';
import { CertificateRequestsService } from './certificate-requests.service.js';
import { CertificatesService } from './certificates.service.js';

const day = 86_400_000;

/** CSRs and imports without a database: a refused chain begins no transaction and audits nothing. */
describe(CertificateRequestsService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const settings = {
    PUBLIC_BASE_URL: 'https://agent.example.com',
    CERTIFICATE_VALIDITY_DAYS: 365,
    MDOC_ISSUER_COUNTRY: 'DE',
  } as Settings;
  const issuerUrl = 'https://agent.example.com/ctrl/oid4vci/acme';
  let ca: AuthorityMaterial;
  let iaca: AuthorityMaterial;

  beforeAll(async () => {
    const validity = [new Date(Date.UTC(2025, 0, 1)), new Date(Date.UTC(2035, 0, 1))] as const;
    ca = await makeDevelopmentAuthority('Tenant CA', ...validity);
    iaca = await makeDevelopmentAuthority('Tenant IACA', ...validity, {
      country: 'DE',
      issuerUri: 'https://iaca.example',
    });
  });

  function newService() {
    const time = testClock(Date.UTC(2026, 0, 1));
    const certificates = fakeCertificateRepository(time.clock);
    const transactions = fakeTransactions();
    const { keys, tenantKeys, tenants } = fakeTenantKeys(['acme', 'other']);
    const audited: string[] = [];
    const audit = {
      record: (action: string, _actor: Actor, tenantId: string) =>
        audited.push(`${action} ${tenantId}`),
    } as unknown as AuditLog;
    const none = {
      current: () => Promise.resolve(undefined),
    } as unknown as CertificateAuthorityService;
    const owner = new CertificatesService(
      transactions.dataSource,
      time.clock,
      settings,
      audit,
      certificates.repository,
      none,
      tenantKeys,
      tenants,
      fakeOutbox().outbox,
    );
    const service = new CertificateRequestsService(
      time.clock,
      settings,
      audit,
      owner,
      tenantKeys,
      tenants,
    );
    const leafFor = (tenantId: string, uris = [issuerUrl]) =>
      issueLeaf(ca, {
        commonName: tenantId,
        publicJwk: keys.get(tenantId)!.publicJwk,
        dnsNames: [],
        uris,
        notBefore: new Date(time.clock() - day),
        notAfter: new Date(time.clock() + day),
      });
    const documentSignerFor = (tenantId: string) =>
      issueDocumentSigner(iaca, {
        commonName: tenantId,
        country: 'DE',
        publicJwk: keys.get(tenantId)!.publicJwk,
        issuerUri: 'https://iaca.example',
        crlUri: 'https://iaca.example/crl',
        notBefore: new Date(time.clock() - day),
        notAfter: new Date(time.clock() + day),
      });
    return { service, certificates, transactions, audited, keys, leafFor, documentSignerFor };
  }

  it('makes a CSR signed by the tenant’s key, naming its issuer URL and host by default', async () => {
    const { service, keys } = newService();
    const { csr } = await service.csr('acme', {});
    const request = new x509.Pkcs10CertificateRequest(csr);
    expect(await request.verify()).toBe(true);
    expect(request.subject).toBe('CN=acme');
    const san = request.extensions.find(
      (extension) => extension instanceof x509.SubjectAlternativeNameExtension,
    ) as x509.SubjectAlternativeNameExtension;
    expect(san.names.toJSON()).toEqual([
      { type: 'dns', value: 'agent.example.com' },
      { type: 'url', value: issuerUrl },
    ]);
    const requested = createPublicKey({
      key: Buffer.from(request.publicKey.rawData),
      format: 'der',
      type: 'spki',
    }).export({ format: 'jwk' });
    expect(requested).toMatchObject({
      x: keys.get('acme')!.publicJwk.x,
      y: keys.get('acme')!.publicJwk.y,
    });
  });

  it('imports a chain for the tenant’s key: active, audited, the root left out', async () => {
    const { service, certificates, audited, keys, leafFor } = newService();
    const leaf = await leafFor('acme');
    const imported = await service.import('acme', { chain: pemOf([leaf, ca.chain[0]]) }, actor);
    expect(imported).toMatchObject({ status: 'active', source: 'imported', uris: [issuerUrl] });
    expect(imported.x5c).toEqual([leaf.toString('base64')]);
    expect(publicJwkOfCertificate(leaf)).toMatchObject({ x: keys.get('acme')!.publicJwk.x });
    expect(certificates.rows).toHaveLength(1);
    expect(audited).toEqual(['certificate.import acme']);
  });

  it('makes a document signer’s CSR: the operator’s country, the mdoc key purpose, no names', async () => {
    const { service } = newService();
    const { csr } = await service.csr('acme', { purpose: 'document_signer' });
    const request = new x509.Pkcs10CertificateRequest(csr);
    expect(await request.verify()).toBe(true);
    expect(request.subject).toBe('C=DE, CN=acme');
    const usage = request.extensions.find(
      (extension) => extension instanceof x509.ExtendedKeyUsageExtension,
    ) as x509.ExtendedKeyUsageExtension;
    expect(usage.usages).toEqual([documentSignerKeyPurpose]);
    expect(usage.critical).toBe(true);
    expect(
      request.extensions.some(
        (extension) => extension instanceof x509.SubjectAlternativeNameExtension,
      ),
    ).toBe(false);
    const named = await service.csr('acme', { purpose: 'document_signer', country: 'AT' });
    expect(new x509.Pkcs10CertificateRequest(named.csr).subject).toBe('C=AT, CN=acme');
  });

  it('imports a document signer from the tenant’s own IACA beside its x5c chain', async () => {
    const { service, certificates, audited, leafFor, documentSignerFor } = newService();
    await service.import('acme', { chain: pemOf([await leafFor('acme')]) }, actor);
    const signer = await documentSignerFor('acme');
    const imported = await service.import(
      'acme',
      { chain: pemOf([signer, iaca.chain[0]]), purpose: 'document_signer' },
      actor,
    );
    expect(imported).toMatchObject({ status: 'active', purpose: 'document_signer' });
    expect(imported.x5c).toEqual([signer.toString('base64')]);
    expect(certificates.rows.map((row) => [row.purpose, row.status])).toEqual([
      ['x5c', 'active'],
      ['document_signer', 'active'],
    ]);
    expect(audited).toHaveLength(2);
  });

  it.each<[string, 'x5c' | 'document_signer', 'leaf' | 'signer']>([
    ['a JWS leaf as a document signer (no mdoc key purpose)', 'document_signer', 'leaf'],
    ['a document signer as a JWS chain (naming no issuer URL)', 'x5c', 'signer'],
  ])('refuses %s', async (_case, purpose, made) => {
    const { service, certificates, leafFor, documentSignerFor } = newService();
    const der = made === 'leaf' ? await leafFor('acme') : await documentSignerFor('acme');
    const refused = service.import('acme', { chain: pemOf([der]), purpose }, actor);
    expect(await codeOf(refused)).toBe('CERTIFICATE_PROFILE_UNSUITABLE');
    expect(certificates.rows).toEqual([]);
  });

  it.each<
    [
      string,
      (leafFor: (tenantId: string, uris?: string[]) => Promise<Buffer>) => Promise<string>,
      string,
    ]
  >([
    ['text that is not PEM', () => Promise.resolve('nothing'), 'CERTIFICATE_CHAIN_MALFORMED'],
    [
      'a leaf for another tenant’s key',
      async (leafFor) => pemOf([await leafFor('other')]),
      'CERTIFICATE_KEY_MISMATCH',
    ],
    [
      'a self-signed certificate',
      () => Promise.resolve(pemOf([ca.chain[0]])),
      'CERTIFICATE_SELF_SIGNED',
    ],
    [
      'a leaf naming another URL',
      async (leafFor) => pemOf([await leafFor('acme', ['https://elsewhere.example/'])]),
      'CERTIFICATE_PROFILE_UNSUITABLE',
    ],
  ])('refuses %s, beginning no transaction', async (_case, chainOf, code) => {
    const { service, certificates, transactions, audited, leafFor } = newService();
    expect(await codeOf(service.import('acme', { chain: await chainOf(leafFor) }, actor))).toBe(
      code,
    );
    expect(certificates.rows).toEqual([]);
    expect(transactions.log).toEqual([]);
    expect(audited).toEqual([]);
  });

  it('refuses an unknown tenant', async () => {
    const { service } = newService();
    expect(await codeOf(service.csr('nobody', {}))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.import('nobody', { chain: 'x' }, actor))).toBe('TENANT_NOT_FOUND');
  });
});
