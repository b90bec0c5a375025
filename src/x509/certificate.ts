import { X509Certificate as NodeCertificate } from 'node:crypto';
import { x509 } from './x509.js';

/** What one chain may hold: bounds the parse and the signature checks of one request. */
export const chainLimits = { certificates: 10, pemCharacters: 64 * 1024 } as const;

/** Why a chain is refused; the caller turns each into its own problem. */
export type ChainRefusalReason =
  | 'malformed'
  | 'self-signed-leaf'
  | 'not-valid-now'
  | 'chain-broken'
  | 'key-mismatch'
  | 'no-digital-signature'
  | 'names-mismatch'
  | 'profile-unsuitable';

/** A chain or certificate this folder refuses, with a sentence that says why. */
export class ChainRefusal extends Error {
  override name = 'ChainRefusal';

  constructor(
    readonly reason: ChainRefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** The facts of one certificate that the API shows and the checks read. */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  serialNumber: string;
  dnsNames: string[];
  uris: string[];
  notBefore: Date;
  notAfter: Date;
  /** keyUsage names digitalSignature (RFC 5280 §4.2.1.3). */
  digitalSignature: boolean;
  /** basicConstraints cA (RFC 5280 §4.2.1.9). */
  ca: boolean;
}

/** A parsed certificate with its DER encoding. */
export interface ParsedCertificate {
  der: Buffer;
  facts: CertificateFacts;
}

/**
 * The certificates of a PEM text, in order: only `CERTIFICATE` blocks, at most `chainLimits`; anything
 * that is not X.509 is a `malformed` refusal.
 */
export function parsePemChain(pem: string): ParsedCertificate[] {
  if (pem.length > chainLimits.pemCharacters) {
    throw new ChainRefusal(
      'malformed',
      `The chain is longer than ${chainLimits.pemCharacters} characters.`,
    );
  }
  let blocks: { type: string; rawData: ArrayBuffer }[];
  try {
    blocks = x509.PemConverter.decodeWithHeaders(pem);
  } catch {
    throw new ChainRefusal('malformed', 'The chain is not PEM text.');
  }
  if (blocks.length === 0) {
    throw new ChainRefusal('malformed', 'The chain holds no PEM CERTIFICATE block.');
  }
  if (blocks.length > chainLimits.certificates) {
    throw new ChainRefusal(
      'malformed',
      `The chain holds ${blocks.length} PEM blocks; at most ${chainLimits.certificates} certificates.`,
    );
  }
  return blocks.map((block, index) => {
    if (block.type !== 'CERTIFICATE') {
      throw new ChainRefusal(
        'malformed',
        `PEM block ${index + 1} is a ${block.type}, not a CERTIFICATE.`,
      );
    }
    return parseDer(Buffer.from(block.rawData), `PEM block ${index + 1}`);
  });
}

/** One DER certificate, read; `where` names it in the refusal. */
export function parseDer(der: Buffer, where = 'The certificate'): ParsedCertificate {
  try {
    return { der, facts: factsOf(new x509.X509Certificate(der)) };
  } catch {
    throw new ChainRefusal('malformed', `${where} is not an X.509 certificate.`);
  }
}

function factsOf(certificate: x509.X509Certificate): CertificateFacts {
  const names = certificate.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [];
  const usages = certificate.getExtension(x509.KeyUsagesExtension)?.usages;
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    serialNumber: certificate.serialNumber,
    dnsNames: names.filter((name) => name.type === 'dns').map((name) => name.value),
    uris: names.filter((name) => name.type === 'url').map((name) => name.value),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    digitalSignature: usages !== undefined && (usages & x509.KeyUsageFlags.digitalSignature) !== 0,
    ca: certificate.getExtension(x509.BasicConstraintsExtension)?.ca === true,
  };
}

/** The certificate's public key as a JWK (`kty`, `crv`, `x`, `y` for EC), for comparing keys. */
export function publicJwkOfCertificate(der: Buffer): Record<string, unknown> {
  return new NodeCertificate(der).publicKey.export({ format: 'jwk' });
}

/** Whether `issuer` names and signed `subject` (RFC 5280 §6.1.3: name chaining and signature). */
export function issuedBy(subject: Buffer, issuer: Buffer): boolean {
  const child = new NodeCertificate(subject);
  const parent = new NodeCertificate(issuer);
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/** Whether the certificate names itself as issuer and its own key verifies it. */
export function selfSigned(der: Buffer): boolean {
  // Not issuedBy: OpenSSL's issuer check also asks for keyCertSign, which a self-signed leaf lacks.
  const certificate = new NodeCertificate(der);
  return certificate.subject === certificate.issuer && certificate.verify(certificate.publicKey);
}

/** Standard base64 of each DER encoding: a JOSE `x5c` (RFC 7515 §4.1.6). */
export function x5cOf(ders: readonly Buffer[]): string[] {
  return ders.map((der) => der.toString('base64'));
}

/** PEM text of DER certificates, one block each. */
export function pemOf(ders: readonly Buffer[]): string {
  return ders.map((der) => new x509.X509Certificate(der).toString('pem')).join('\n') + '\n';
}
