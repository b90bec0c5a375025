import 'reflect-metadata';
import { webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
import * as x509 from '@peculiar/x509';

// The library's types name the DOM's Crypto and CryptoKey, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

/** A certificate made for a test with its keys: `base64` is its x5c element, `pem` its PEM. */
export interface TestCertificate {
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
  base64: string;
  pem: string;
  subject: string;
  /** base64url subject key identifier, as DCQL's `aki` names it. */
  keyId: string;
}

export interface CertificateOptions {
  /** The issuer; absent: self-signed. */
  issuer?: TestCertificate;
  ca?: boolean;
  pathLength?: number;
  /** Key usage flags; null: no keyUsage extension. Defaults: keyCertSign|cRLSign for a CA, else digitalSignature. */
  usages?: number | null;
  notBefore?: Date;
  notAfter?: Date;
  /** Subject alternative names of a leaf. */
  uris?: string[];
  dnsNames?: string[];
  /** Signs with these keys instead of the issuer's (a forged link). */
  signingKeys?: CryptoKeyPair;
  extraExtensions?: x509.Extension[];
}

/** One P-256 certificate, signed by `options.issuer` or by itself. */
export async function makeCertificate(
  name: string,
  options: CertificateOptions = {},
): Promise<TestCertificate> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = options.ca ?? false;
  const usages =
    options.usages === undefined
      ? ca
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
        : x509.KeyUsageFlags.digitalSignature
      : options.usages;
  const names = [
    ...(options.uris ?? []).map((value) => ({ type: 'url' as const, value })),
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
  ];
  const subject = `CN=${name} ${crypto.randomUUID().slice(0, 8)}`;
  const signer = options.signingKeys ?? options.issuer?.keys ?? keys;
  const ski = await x509.SubjectKeyIdentifierExtension.create(keys.publicKey);
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(ca, ca ? options.pathLength : undefined, true),
    ski,
    ...(usages === null ? [] : [new x509.KeyUsagesExtension(usages, true)]),
    ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ...(options.issuer === undefined
      ? []
      : [
          await x509.AuthorityKeyIdentifierExtension.create(options.issuer.keys.publicKey as never),
        ]),
    ...(options.extraExtensions ?? []),
  ];
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(8)))
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    subject,
    issuer: options.issuer?.subject ?? subject,
    publicKey: keys.publicKey as never,
    signingKey: signer.privateKey as never,
    signingAlgorithm: algorithm,
    notBefore: options.notBefore ?? new Date(Date.now() - day),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * day),
    extensions,
  });
  return {
    certificate,
    keys,
    base64: Buffer.from(certificate.rawData).toString('base64'),
    pem: certificate.toString('pem'),
    subject: certificate.subject,
    keyId: Buffer.from(ski.keyId, 'hex').toString('base64url'),
  };
}

/** A root, an intermediate under it and an issuer's leaf under that, valid now. */
export async function makePki(leafNames: { uris?: string[]; dnsNames?: string[] } = {}) {
  const root = await makeCertificate('Test root', { ca: true });
  const intermediate = await makeCertificate('Test intermediate', {
    ca: true,
    pathLength: 0,
    issuer: root,
  });
  const leaf = await makeCertificate('Test issuer', { issuer: intermediate, ...leafNames });
  return { root, intermediate, leaf };
}

/** The leaf's private key as a JWK, for signing libraries that take one. */
export async function privateJwkOf(certificate: TestCertificate): Promise<webcrypto.JsonWebKey> {
  return webcrypto.subtle.exportKey('jwk', certificate.keys.privateKey);
}
