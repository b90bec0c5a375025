import { webcrypto } from 'node:crypto';
import { makeDevelopmentAuthority, type AuthorityMaterial } from './authority.js';
import {
  documentSignerKeyPurpose,
  documentSignerProfileGap,
  issueDocumentSigner,
} from './document-signer.js';
import { libraryKey, x509 } from './x509.js';

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const notBefore = new Date(Date.UTC(2026, 0, 1));
const notAfter = new Date(Date.UTC(2027, 0, 1));

/** The Annex B.1.4 check against what we issue, and against certificates each missing one part. */
describe(documentSignerProfileGap.name, () => {
  let iaca: AuthorityMaterial;
  let iacaCertificate: x509.X509Certificate;
  let iacaKey: webcrypto.CryptoKey;

  beforeAll(async () => {
    iaca = await makeDevelopmentAuthority('Test IACA', notBefore, notAfter, {
      country: 'DE',
      issuerUri: 'https://iaca.example',
    });
    iacaCertificate = new x509.X509Certificate(iaca.chain[0]);
    iacaKey = await webcrypto.subtle.importKey('pkcs8', iaca.privateKey, algorithm, false, [
      'sign',
    ]);
  });

  /** A document signer like ours, with `change` applied to its subject or extensions. */
  async function signer(
    change: { subject?: string; usages?: x509.KeyUsageFlags; drop?: string[] } = {},
  ): Promise<Buffer> {
    const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const extensions = [
      new x509.KeyUsagesExtension(change.usages ?? x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([documentSignerKeyPurpose], true),
      new x509.IssuerAlternativeNameExtension([{ type: 'url', value: 'https://iaca.example' }]),
      new x509.CRLDistributionPointsExtension(['https://iaca.example/crl']),
      await x509.SubjectKeyIdentifierExtension.create(libraryKey(keys.publicKey)),
      await x509.AuthorityKeyIdentifierExtension.create(iacaCertificate.publicKey),
    ].filter((extension) => !(change.drop ?? []).includes(extension.type));
    const certificate = await x509.X509CertificateGenerator.create({
      subject: change.subject ?? 'C=DE, CN=acme',
      issuer: iacaCertificate.subject,
      publicKey: libraryKey(keys.publicKey),
      signingKey: libraryKey(iacaKey),
      signingAlgorithm: algorithm,
      notBefore,
      notAfter,
      extensions,
    });
    return Buffer.from(certificate.rawData);
  }

  it('finds nothing missing in a document signer the authority issues, nor in one made alike', async () => {
    const { x, y } = (await webcrypto.subtle.exportKey(
      'jwk',
      (await webcrypto.subtle.generateKey(algorithm, true, ['sign'])).publicKey,
    )) as { x: string; y: string };
    const issued = await issueDocumentSigner(iaca, {
      commonName: 'acme',
      country: 'DE',
      publicJwk: { kty: 'EC', crv: 'P-256', x, y },
      issuerUri: 'https://agent.example/ctrl/oid4vci/acme',
      crlUri: 'https://agent.example/crl',
      notBefore,
      notAfter,
    });
    expect(documentSignerProfileGap(issued)).toBeUndefined();
    expect(documentSignerProfileGap(await signer())).toBeUndefined();
  });

  it.each<[string, Parameters<typeof signer>[0], RegExp]>([
    [
      'a keyUsage beyond digitalSignature',
      { usages: x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement },
      /digitalSignature and nothing else/,
    ],
    ['no extended key usage', { drop: ['2.5.29.37'] }, /1\.0\.18013\.5\.1\.2/],
    ['no countryName', { subject: 'CN=acme' }, /countryName \(C\)/],
    ['another country than its IACA', { subject: 'C=FR, CN=acme' }, /FR must be its issuer’s/],
    ['no issuer alternative name', { drop: ['2.5.29.18'] }, /issuer alternative name/],
    ['no CRL distribution point', { drop: ['2.5.29.31'] }, /CRL distribution point/],
    ['no subject key identifier', { drop: ['2.5.29.14'] }, /subject key identifier/],
    ['no authority key identifier', { drop: ['2.5.29.35'] }, /authority key identifier/],
  ])('names what is missing: %s', async (_case, change, says) => {
    expect(documentSignerProfileGap(await signer(change))).toMatch(says);
  });
});
