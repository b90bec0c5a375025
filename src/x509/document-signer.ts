import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { type AuthorityMaterial } from './authority.js';
import { libraryKey, x509 } from './x509.js';

/** The extended key usage of an mdoc document signer (ISO/IEC 18013-5 Annex B.1.4). */
export const documentSignerKeyPurpose = '1.0.18013.5.1.2';

/** What a document signer certificate for a tenant's key says (docs/mdoc.md, Certificates). */
export interface DocumentSignerProfile {
  commonName: string;
  /** ISO 3166-1 alpha-2 country of the issuer: the subject's countryName. */
  country: string;
  /** The public key certified: a P-256 JWK. */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  /** The issuer alternative name: a URI where the issuer is reached. */
  issuerUri: string;
  /** Where the authority's CRL is published (CRL distribution point). */
  crlUri: string;
  notBefore: Date;
  notAfter: Date;
}

/**
 * A document signer certificate for a tenant's P-256 key, signed by the authority acting as IACA, with
 * the ISO/IEC 18013-5 Annex B.1.4 profile: keyUsage digitalSignature only (critical), extended key usage
 * 1.0.18013.5.1.2 (critical), issuer alternative name, CRL distribution point, key identifiers.
 */
export async function issueDocumentSigner(
  authority: AuthorityMaterial,
  profile: DocumentSignerProfile,
): Promise<Buffer> {
  const issuer = new x509.X509Certificate(authority.chain[0]);
  const key = createPrivateKey({ key: authority.privateKey, format: 'der', type: 'pkcs8' });
  const curve = key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256';
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    authority.privateKey,
    { name: 'ECDSA', namedCurve: curve },
    false,
    ['sign'],
  );
  const publicKey = await webcrypto.subtle.importKey(
    'jwk',
    profile.publicJwk,
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['verify'],
  );
  const certificate = await x509.X509CertificateGenerator.create({
    subject: [{ C: [profile.country] }, { CN: [profile.commonName] }],
    issuer: issuer.subjectName,
    publicKey: libraryKey(publicKey),
    signingKey: libraryKey(signingKey),
    signingAlgorithm: { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' },
    serialNumber: serialNumber(),
    notBefore: profile.notBefore,
    notAfter: profile.notAfter,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([documentSignerKeyPurpose], true),
      new x509.IssuerAlternativeNameExtension([{ type: 'url', value: profile.issuerUri }]),
      new x509.CRLDistributionPointsExtension([profile.crlUri]),
      await x509.SubjectKeyIdentifierExtension.create(libraryKey(publicKey)),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey),
    ],
  });
  return Buffer.from(certificate.rawData);
}

/** A positive 128-bit serial number in hex (RFC 5280 §4.1.2.2). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}
