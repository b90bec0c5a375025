import { createHash } from 'node:crypto';
import { anchorProblem, keyIdentifiers, parseCertificate, pemOf } from './chain.js';

/** What a tenant's list of trusted certificates keeps of one (trust anchors, wallet providers). */
export interface TrustedCertificateFacts {
  /** SHA-256 of the DER, hex: one certificate is one entry per tenant. */
  fingerprint: string;
  /** The certificate as PEM, 64 characters a line. */
  certificate: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** base64url; null when the certificate has none. */
  subjectKeyIdentifier: string | null;
}

const pemCertificate =
  /^\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*$/;

/**
 * One PEM certificate a chain may end at, read once when a tenant adds it: a CA's or a self-signed
 * one, not expired at `now`. Answers its facts, or why it may not be one (a phrase after "The certificate").
 */
export function trustedCertificateOf(pem: string, now: number): TrustedCertificateFacts | string {
  if (!pemCertificate.test(pem)) return 'is not one PEM certificate (-----BEGIN CERTIFICATE-----)';
  const certificate = parseCertificate(pem);
  if (typeof certificate === 'string') return certificate;
  const problem = anchorProblem(certificate);
  if (problem !== undefined) return problem;
  if (certificate.notAfter.getTime() < now) {
    return `expired on ${certificate.notAfter.toISOString()}`;
  }
  return {
    fingerprint: createHash('sha256').update(certificate.der).digest('hex'),
    certificate: pemOf(certificate),
    subject: certificate.subject,
    issuer: certificate.issuer,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    subjectKeyIdentifier: keyIdentifiers(certificate).subjectKeyIdentifier ?? null,
  };
}
