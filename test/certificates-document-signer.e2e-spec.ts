import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { authorityKeyPurpose } from '../src/certificates/certificates.sealed-columns.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { elementValues } from '../src/mdoc/elements.js';
import { issueMdoc } from '../src/mdoc/issue-mdoc.js';
import { verifyDeviceResponse } from '../src/mdoc/verify-mdoc.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { makeDevelopmentAuthority } from '../src/x509/authority.js';
import { auth0Checks, handoverTranscript, presentWithAuth0 } from './support/mdoc-holder.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  documentSignerExtensions,
  makeCa,
  pemChain,
  signLeaf,
  x509,
} from './support/x509-test-ca.js';

const base = '/ctrl/api/v1.0/certificates';
const day = 86_400_000;
const mdl = 'org.iso.18013.5.1.mDL';
const ns = 'org.iso.18013.5.1';

interface Certificate {
  id: string;
  status: string;
  purpose: string;
  x5c: string[];
}

/**
 * The tenant's mdoc document signer from the development authority acting as IACA (ISO/IEC 18013-5
 * Annex B): one active beside the `x5c` chain, the profile @auth0/mdl's verifier wants, the CRL its
 * distribution point names, and an mdoc signed with the tenant's key that @auth0/mdl verifies; or one
 * the tenant's own IACA signed, imported.
 */
describe('The document signer certificate', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ env: { MDOC_ISSUER_COUNTRY: 'DE' } });
    await service.client().createTenant({ id: 'acme', label: 'Acme' });
    await service.client().createTenant({ id: 'beta', label: 'Beta' });
  });
  afterAll(() => service?.close());

  const issue = (body?: unknown, tenant = 'acme') =>
    service.request<Certificate>(`${base}/issue`, {
      method: 'POST',
      headers: { 'x-tenant-id': tenant },
      ...(body === undefined ? {} : { body }),
    });

  it('keeps one active chain per purpose: the x5c and the document signer side by side', async () => {
    const signer = await issue({ purpose: 'document_signer' });
    expect(signer.status).toBe(201);
    expect(signer.body).toMatchObject({ purpose: 'document_signer', status: 'active' });
    const jws = await issue();
    expect(jws.status).toBe(201);
    expect(jws.body).toMatchObject({ purpose: 'x5c', status: 'active' });
    const again = { body: await service.client().issueCertificate('acme', 'document_signer') };
    const page = await service.client().listCertificates('acme');
    const byId = new Map(page.content.map((row) => [row.id, row]));
    expect(byId.get(signer.body.id)).toMatchObject({
      status: 'superseded',
      purpose: 'document_signer',
    });
    expect(byId.get(again.body.id)).toMatchObject({ status: 'active', purpose: 'document_signer' });
    expect(byId.get(jws.body.id)).toMatchObject({ status: 'active', purpose: 'x5c' });
    const certificates = service.app.get(CertificatesService);
    expect(await certificates.documentSignerChain('acme')).toEqual(again.body.x5c);
    expect(await certificates.activeChain('acme')).toEqual(jws.body.x5c);
  });

  it('refuses a purpose it does not know, and changes nothing', async () => {
    const before = await service.client().listCertificates('acme');
    const answer = await issue({ purpose: 'root' });
    expectProblem(answer, 400, 'VALIDATION_FAILED', `${base}/issue`);
    expect((await service.client().listCertificates('acme')).totalElements).toBe(
      before.totalElements,
    );
  });

  it('issues a document signer on first need, once', async () => {
    const certificates = service.app.get(CertificatesService);
    const first = await certificates.documentSignerChain('beta');
    expect(first).toHaveLength(1);
    expect(await certificates.documentSignerChain('beta')).toEqual(first);
    const page = await service.client().listCertificates('beta');
    expect(page.content.map((row) => row.purpose)).toEqual(['document_signer']);
  });

  it('has the ISO/IEC 18013-5 Annex B profile, under an IACA root, with a CRL that answers', async () => {
    const [der] = (await service.app.get(CertificatesService).documentSignerChain('acme'))!;
    const ds = new x509.X509Certificate(Buffer.from(der, 'base64'));
    expect(ds.subjectName.getField('C')).toEqual(['DE']);
    expect(ds.subjectName.getField('CN')).toEqual(['acme']);
    const keyUsage = ds.getExtension(x509.KeyUsagesExtension)!;
    expect(keyUsage.critical).toBe(true);
    expect(keyUsage.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    const eku = ds.getExtension(x509.ExtendedKeyUsageExtension)!;
    expect(eku.critical).toBe(true);
    expect(eku.usages).toEqual(['1.0.18013.5.1.2']);
    expect(ds.getExtension(x509.IssuerAlternativeNameExtension)!.names.items[0]).toMatchObject({
      type: 'url',
      value: expect.stringMatching(/^http:\/\/[^/]+\/ctrl\/oid4vci\/acme$/),
    });
    expect(ds.getExtension(x509.SubjectKeyIdentifierExtension)).not.toBeNull();
    expect(ds.getExtension(x509.AuthorityKeyIdentifierExtension)).not.toBeNull();
    const distribution = ds.getExtension(x509.CRLDistributionPointsExtension)!;
    const crlUrl = new URL(
      distribution.distributionPoints[0].distributionPoint!.fullName![0].uniformResourceIdentifier!,
    );
    expect(crlUrl.pathname).toMatch(/^\/ctrl\/certificate-authorities\/[0-9a-f-]{36}\/crl$/);

    const rootPem = (await service.client().getCertificateAuthority('acme')).certificate;
    const root = new x509.X509Certificate(rootPem);
    expect(root.subjectName.getField('C')).toEqual(['DE']);
    expect(root.getExtension(x509.IssuerAlternativeNameExtension)).not.toBeNull();
    expect(root.getExtension(x509.BasicConstraintsExtension)).toMatchObject({
      ca: true,
      pathLength: 0,
    });
    expect(root.getExtension(x509.KeyUsagesExtension)!.usages).toBe(
      x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
    );
    expect(await ds.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);

    // The CRL: public, DER, signed by the root, cached.
    const answer = await fetch(new URL(crlUrl.pathname, service.url));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/pkix-crl/);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=3600');
    const crl = new x509.X509Crl(Buffer.from(await answer.arrayBuffer()));
    expect(crl.issuer).toBe(root.subject);
    expect(await crl.verify({ publicKey: root.publicKey })).toBe(true);
    expect(crl.entries).toHaveLength(0);
    expect(crl.nextUpdate!.getTime()).toBeGreaterThan(Date.now());
  });

  it('answers 404 for a CRL of no authority, and for a path that is no id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const path = `/ctrl/certificate-authorities/${id}/crl`;
      expectProblem(
        await service.request(path, { as: 'anonymous' }),
        404,
        'CERTIFICATE_AUTHORITY_NOT_FOUND',
        path,
      );
    }
  });

  /**
   * An mdoc signed with the tenant's key under its active document signer, presented by @auth0/mdl:
   * that library's failed checks under `rootsPem`, and the elements our verifier reads under `root`.
   */
  async function signedAndChecked(tenantId: string, rootPem: string, otherRootsPem: string[] = []) {
    const chain = (await service.app.get(CertificatesService).documentSignerChain(tenantId))!;
    const key = await service.app.get(TenantKeys).es256SigningKey(tenantId);
    const device = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const devicePublic = device.publicKey.export({ format: 'jwk' });
    const values = elementValues({
      [ns]: { family_name: 'Mustermann', issuing_country: 'DE', birth_date: '1963-08-12' },
    });
    if (!('values' in values)) throw new Error(JSON.stringify(values.errors));
    const now = new Date();
    const credential = await issueMdoc(
      {
        doctype: mdl,
        namespaces: values.values,
        deviceKey: { kty: 'EC', crv: 'P-256', x: devicePublic.x!, y: devicePublic.y! },
        signed: now,
        validFrom: now,
        validUntil: new Date(now.getTime() + 30 * day),
      },
      { sign: (data) => key.sign(data), chain },
    );
    const transcript = handoverTranscript(
      'x509_san_dns:rp.example',
      'n',
      'https://rp.example/post',
    );
    const presented = await presentWithAuth0({
      credential,
      doctype: mdl,
      namespace: ns,
      elements: ['family_name', 'issuing_country'],
      devicePrivateJwk: device.privateKey.export({ format: 'jwk' }),
      transcript,
    });
    const failed = async (rootsPem: string[]) =>
      (await auth0Checks(presented, transcript, rootsPem)).filter(
        (check) => check.status === 'FAILED',
      );
    const [verified] = await verifyDeviceResponse({
      deviceResponse: presented.toString('base64url'),
      sessionTranscript: transcript,
      anchors: [Buffer.from(new x509.X509Certificate(rootPem).rawData).toString('base64')],
      now,
    });
    return {
      chain,
      failedUnderRoot: await failed([rootPem]),
      failedUnderOthers: otherRootsPem.length === 0 ? [] : await failed(otherRootsPem),
      elements: verified.elements[ns],
    };
  }

  it('signs an mdoc with the tenant key that @auth0/mdl verifies up to the authority root', async () => {
    const rootPem = (await service.client().getCertificateAuthority('acme')).certificate;
    const checked = await signedAndChecked('acme', rootPem);
    expect(checked.failedUnderRoot).toEqual([]);
    expect(checked.elements).toEqual({ family_name: 'Mustermann', issuing_country: 'DE' });
  });

  it('imports a document signer from the tenant’s own IACA: its mdocs verify under that IACA only', async () => {
    const own = await makeCa('Beta IACA', undefined, 'DE');
    const call = <Body>(path: string, body: unknown) =>
      service.request<Body>(`${base}${path}`, {
        method: 'POST',
        headers: { 'x-tenant-id': 'beta' },
        body,
      });
    const { csr } = (await call<{ csr: string }>('/csr', { purpose: 'document_signer' })).body;
    const request = new x509.Pkcs10CertificateRequest(csr);
    expect(request.subject).toBe('C=DE, CN=beta');
    const profile = await documentSignerExtensions(csr);
    // Without the mdoc extended key usage it is refused, naming what it misses, and changes nothing.
    const before = await service.client().listCertificates('beta');
    const lacking = await signLeaf(own, csr, { extensions: profile.slice(1) });
    const refused = await call('/import', {
      chain: pemChain(lacking, own.certificate),
      purpose: 'document_signer',
    });
    const problem = expectProblem(refused, 422, 'CERTIFICATE_PROFILE_UNSUITABLE', `${base}/import`);
    expect(problem.detail).toMatch(/1\.0\.18013\.5\.1\.2/);
    expect(await service.client().listCertificates('beta')).toEqual(before);

    const signer = await signLeaf(own, csr, { extensions: profile });
    const imported = await call<Certificate>('/import', {
      chain: pemChain(signer, own.certificate),
      purpose: 'document_signer',
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({
      purpose: 'document_signer',
      status: 'active',
      x5c: [Buffer.from(signer.rawData).toString('base64')],
    });
    const serviceRoot = (await service.client().getCertificateAuthority('beta')).certificate;
    const checked = await signedAndChecked('beta', own.certificate.toString('pem'), [serviceRoot]);
    expect(checked.chain).toEqual(imported.body.x5c);
    expect(checked.failedUnderRoot).toEqual([]);
    expect(checked.failedUnderOthers.length).toBeGreaterThan(0);
    expect(checked.elements).toEqual({ family_name: 'Mustermann', issuing_country: 'DE' });
  });
});

/**
 * A development authority made before it was an IACA (no countryName) is replaced at the next start by
 * one that is; the old one stays, its CRL still answered.
 */
describe('A development authority made before mdoc', () => {
  it('is replaced at the next start by an IACA, the old one kept', async () => {
    const first = await startTestService();
    const env = { DATABASE_URL: first.databaseUrl, AGENT_MASTER_KEY: first.masterKey };
    const old = await makeDevelopmentAuthority(
      'Old development CA',
      new Date(Date.now() - day),
      new Date(Date.now() + 365 * day),
    );
    const id = randomUUID();
    const vault = first.app.get(KeyVault);
    const db = new Client({ connectionString: first.databaseUrl });
    await db.connect();
    try {
      await db.query('UPDATE certificate_authority SET current = false');
      await db.query(
        `INSERT INTO certificate_authority (id, source, fingerprint, chain, private_key_sealed, master_key_id, current)
         VALUES ($1, 'development', $2, $3::jsonb, $4, $5, true)`,
        [
          id,
          createHash('sha256').update(old.chain[0]).digest('hex'),
          JSON.stringify([old.chain[0].toString('base64')]),
          vault.seal(id, old.privateKey, authorityKeyPurpose),
          vault.masterKeyId,
        ],
      );
    } finally {
      await db.end();
    }
    await first.close();

    const second = await startTestService({ env });
    try {
      await second.client().createTenant({ id: 'acme', label: 'Acme' });
      const rootPem = (await second.client().getCertificateAuthority('acme')).certificate;
      const root = new x509.X509Certificate(rootPem);
      expect(root.subjectName.getField('C')).toEqual(['XX']);
      expect(root.getExtension(x509.IssuerAlternativeNameExtension)).not.toBeNull();
      const oldCrl = await fetch(new URL(`/ctrl/certificate-authorities/${id}/crl`, second.url));
      expect(oldCrl.status).toBe(200);
    } finally {
      await second.close();
    }
  });
});
