import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { LRUCache } from 'lru-cache';
import { type JsonWebKey, webcrypto, X509Certificate as NodeCertificate } from 'node:crypto';

// The library's types name the DOM's Crypto, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

/** What one certificate of an `x5c` chain or a trust anchor may be: real ones are 0.5 to 2 KiB. */
export const certificateLimits = {
  /** DER bytes of one certificate. */
  derBytes: 8 * 1024,
  /** Certificates of one `x5c` chain (leaf first), as RFC 7515 §4.1.6 carries it. */
  chainLength: 5,
  /** Parsed certificates remembered by their text (base64 or PEM), about 20 KiB each at most. */
  remembered: 512,
} as const;

/** Extensions a chain check reads; any other marked critical refuses the certificate (RFC 5280 §4.2). */
const understoodExtensions: ReadonlySet<string> = new Set([
  '2.5.29.14', // subject key identifier
  '2.5.29.15', // key usage
  '2.5.29.17', // subject alternative name
  '2.5.29.19', // basic constraints
  '2.5.29.35', // authority key identifier
  '2.5.29.37', // extended key usage: read by no check, harmless to accept
]);

/**
 * One parsed certificate: the DER read by node:crypto (keys, signatures) and by @peculiar/x509 (names,
 * extensions), every extension the checks use read at once, so that a malformed one refuses the
 * certificate here instead of throwing later.
 */
export interface Certificate {
  der: Buffer;
  node: NodeCertificate;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** Basic constraints (RFC 5280 §4.2.1.9): absent is not a CA. */
  ca: boolean;
  pathLength?: number;
  /** Key usage bits (RFC 5280 §4.2.1.3); undefined without the extension. */
  keyUsage?: number;
  /** base64url (RFC 5280 §4.2.1.1, §4.2.1.2), what DCQL's `aki` names (OpenID4VP 1.0 §6.1.1). */
  subjectKeyIdentifier?: string;
  authorityKeyIdentifier?: string;
  /** Subject alternative names (RFC 5280 §4.2.1.6): URIs and DNS names. */
  readonly uris: readonly string[];
  readonly dnsNames: readonly string[];
  /** The OID of a critical extension the checks do not read (RFC 5280 §4.2), if any. */
  unknownCritical?: string;
}

/**
 * Certificates parsed from text, by that text: a certificate never changes, and the same issuers' and
 * verifiers' chains come back with every presentation (docs/performance.md). Only what parsed is kept;
 * the checks that depend on time or on trust run on every use.
 */
const parsedTexts = new LRUCache<string, Certificate>({ max: certificateLimits.remembered });

/** A DER certificate, its base64 (an `x5c` element, RFC 7515 §4.1.6) or PEM, or why it is none. */
export function parseCertificate(input: string | Uint8Array): Certificate | string {
  if (typeof input !== 'string') return readCertificate(input);
  const known = parsedTexts.get(input);
  if (known !== undefined) return known;
  const parsed = readCertificate(input);
  if (typeof parsed !== 'string') parsedTexts.set(input, parsed);
  return parsed;
}

function readCertificate(input: string | Uint8Array): Certificate | string {
  const der = derOf(input);
  if (typeof der === 'string') return der;
  if (der.length > certificateLimits.derBytes) {
    return `is longer than ${certificateLimits.derBytes} bytes of DER`;
  }
  try {
    const parsed = new x509.X509Certificate(der);
    const constraints = parsed.getExtension(x509.BasicConstraintsExtension);
    const names = parsed.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [];
    return {
      der,
      node: new NodeCertificate(der),
      subject: parsed.subject,
      issuer: parsed.issuer,
      notBefore: parsed.notBefore,
      notAfter: parsed.notAfter,
      ca: constraints?.ca ?? false,
      pathLength: constraints?.pathLength,
      keyUsage: parsed.getExtension(x509.KeyUsagesExtension)?.usages,
      subjectKeyIdentifier: base64url(
        parsed.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId,
      ),
      authorityKeyIdentifier: base64url(
        parsed.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId,
      ),
      uris: names.filter((name) => name.type === 'url').map((name) => name.value),
      dnsNames: names.filter((name) => name.type === 'dns').map((name) => name.value),
      unknownCritical: parsed.extensions.find(
        (extension) => extension.critical && !understoodExtensions.has(extension.type),
      )?.type,
    };
  } catch {
    return 'is not a DER X.509 certificate';
  }
}

const base64url = (hex: string | undefined) =>
  hex === undefined || hex === '' ? undefined : Buffer.from(hex, 'hex').toString('base64url');

function derOf(input: string | Uint8Array): Buffer | string {
  if (typeof input !== 'string') return Buffer.from(input);
  const pem =
    /^\s*-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----\s*$/.exec(input);
  const base64 = pem === null ? input : pem[1].replace(/\s+/g, '');
  // x5c is standard base64, not base64url (RFC 7515 §4.1.6).
  if (base64 === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    return pem === null ? 'is not base64 of DER' : 'is not a PEM certificate';
  }
  if (base64.length > Math.ceil(certificateLimits.derBytes / 3) * 4) {
    return `is longer than ${certificateLimits.derBytes} bytes of DER`;
  }
  return Buffer.from(base64, 'base64');
}

/** PEM of a certificate, 64 characters a line (RFC 7468 §2). */
export function pemOf(certificate: Certificate): string {
  const lines = certificate.der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export const usage = {
  digitalSignature: x509.KeyUsageFlags.digitalSignature,
  keyCertSign: x509.KeyUsageFlags.keyCertSign,
} as const;

/** Whether the certificate names itself as issuer and its own key verifies its signature. */
export function isSelfSigned(certificate: Certificate): boolean {
  return certificate.subject === certificate.issuer && signedBy(certificate, certificate);
}

/** Whether `issuer`'s key verifies `certificate`'s signature (any algorithm OpenSSL knows). */
export function signedBy(certificate: Certificate, issuer: Certificate): boolean {
  try {
    return certificate.node.verify(issuer.node.publicKey);
  } catch {
    return false;
  }
}

/** The subject and authority key identifiers, base64url; absent extensions answer undefined. */
export function keyIdentifiers(certificate: Certificate): {
  subjectKeyIdentifier?: string;
  authorityKeyIdentifier?: string;
} {
  const { subjectKeyIdentifier, authorityKeyIdentifier } = certificate;
  return { subjectKeyIdentifier, authorityKeyIdentifier };
}

/** The subject alternative names a leaf is named by: its URIs and DNS names. */
export function alternativeNames(certificate: Certificate): {
  uris: readonly string[];
  dnsNames: readonly string[];
} {
  return { uris: certificate.uris, dnsNames: certificate.dnsNames };
}

/** The certificate's public key as node:crypto exports it (public members only); src/jose/ vets it. */
export function publicKeyJwk(certificate: Certificate): JsonWebKey | undefined {
  try {
    return certificate.node.publicKey.export({ format: 'jwk' });
  } catch {
    return undefined;
  }
}
