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

/**
 * The first requirement of the Annex B.1.4 document signer profile the certificate misses, as a
 * sentence; undefined when it meets them all. Checked on import: a verifier following ISO/IEC 18013-5
 * refuses an mdoc whose document signer lacks any of them.
 */
export function documentSignerProfileGap(der: Buffer): string | undefined {
  const certificate = new x509.X509Certificate(der);
  const usages = certificate.getExtension(x509.KeyUsagesExtension)?.usages;
  if (usages !== x509.KeyUsageFlags.digitalSignature) {
    return 'Its keyUsage must name digitalSignature and nothing else.';
  }
  const purposes = certificate.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [];
  if (!purposes.map(String).includes(documentSignerKeyPurpose)) {
    return `Its extended key usage must name ${documentSignerKeyPurpose} (mdoc document signer).`;
  }
  const [country] = certificate.subjectName.getField('C');
  if (country === undefined) return 'Its subject must name a countryName (C).';
  const issuerCountries = certificate.issuerName.getField('C');
  if (!issuerCountries.includes(country)) {
    return `Its subject’s countryName ${country} must be its issuer’s (the IACA’s), which names ${issuerCountries.join(', ') || 'none'}.`;
  }
  // RFC 5280 §4.2.1: the extensions' object identifiers.
  const required = [
    ['2.5.29.18', 'an issuer alternative name'],
    ['2.5.29.31', 'a CRL distribution point'],
    ['2.5.29.14', 'a subject key identifier'],
    ['2.5.29.35', 'an authority key identifier'],
  ] as const;
  for (const [oid, name] of required) {
    if (certificate.getExtension(oid) === null) return `It must carry ${name}.`;
  }
  return undefined;
}
