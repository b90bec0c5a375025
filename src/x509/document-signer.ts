import {
  authoritySigner,
  certifiedKey,
  serialNumber,
  type AuthorityMaterial,
} from './authority.js';
import { x509 } from './x509.js';

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
  const { issuer, signingKey, signingAlgorithm } = await authoritySigner(authority);
  const publicKey = await certifiedKey(profile.publicJwk);
  const certificate = await x509.X509CertificateGenerator.create({
    subject: [{ C: [profile.country] }, { CN: [profile.commonName] }],
    issuer: issuer.subjectName,
    publicKey,
    signingKey,
    signingAlgorithm,
    serialNumber: serialNumber(),
    notBefore: profile.notBefore,
    notAfter: profile.notAfter,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([documentSignerKeyPurpose], true),
      new x509.IssuerAlternativeNameExtension([{ type: 'url', value: profile.issuerUri }]),
      new x509.CRLDistributionPointsExtension([profile.crlUri]),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey),
    ],
  });
  return Buffer.from(certificate.rawData);
}
