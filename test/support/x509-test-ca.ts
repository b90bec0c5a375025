import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// The library's types name the DOM's Crypto and CryptoKey, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

export { x509 };

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

/** A certificate and the key that signs with it. */
export interface Issuer {
  certificate: x509.X509Certificate;
  privateKey: never;
  /** PKCS #8 PEM of the private key, for CERTIFICATE_AUTHORITY_KEY_FILE. */
  keyPem(): Promise<string>;
}

/** A new P-256 key pair, typed as the library takes it. */
export async function newKeys(): Promise<{ publicKey: never; privateKey: never }> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as never;
}

/**
 * A CA made with @peculiar/x509 alone: a self-signed root, or an intermediate `parent` signs; with a
 * `country`, its subject names it (what an mdoc IACA's does).
 */
export async function makeCa(name: string, parent?: Issuer, country?: string): Promise<Issuer> {
  const keys = await newKeys();
  const subject = country === undefined ? `CN=${name}` : `C=${country}, CN=${name}`;
  const extensions = [
    new x509.BasicConstraintsExtension(true, parent === undefined ? 1 : 0, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  const validity = {
    notBefore: new Date(Date.now() - day),
    notAfter: new Date(Date.now() + 30 * day),
  };
  const certificate =
    parent === undefined
      ? await x509.X509CertificateGenerator.createSelfSigned({
          name: subject,
          keys: keys as never,
          signingAlgorithm: algorithm,
          ...validity,
          extensions,
        })
      : await x509.X509CertificateGenerator.create({
          subject,
          issuer: parent.certificate.subject,
          publicKey: keys.publicKey,
          signingKey: parent.privateKey,
          signingAlgorithm: algorithm,
          ...validity,
          extensions: [
            ...extensions,
            await x509.AuthorityKeyIdentifierExtension.create(parent.certificate.publicKey),
          ],
        });
  return {
    certificate,
    privateKey: keys.privateKey,
    keyPem: async () => {
      const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
      return x509.PemConverter.encode(der, 'PRIVATE KEY');
    },
  };
}

export interface LeafOptions {
  /** Default: the CSR's subject. */
  commonName?: string;
  /** Default: the key the CSR names. */
  publicKey?: x509.PublicKey;
  dnsNames?: string[];
  uris?: string[];
  /** Default: digitalSignature; null: no keyUsage extension. */
  usages?: x509.KeyUsageFlags | null;
  notBefore?: Date;
  notAfter?: Date;
  /** Added after the defaults (basicConstraints, keyUsage, subjectAltName, authority key id). */
  extensions?: x509.Extension[];
}

/** A leaf the issuer signs for the CSR's key and names (or what `options` says instead). */
export async function signLeaf(
  issuer: Issuer,
  csrPem: string,
  options: LeafOptions = {},
): Promise<x509.X509Certificate> {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  const requested =
    csr.extensions
      .find(
        (extension): extension is x509.SubjectAlternativeNameExtension =>
          extension instanceof x509.SubjectAlternativeNameExtension,
      )
      ?.names.toJSON() ?? [];
  const names = [
    ...(options.dnsNames?.map((value) => ({ type: 'dns' as const, value })) ??
      requested.filter((name) => name.type === 'dns')),
    ...(options.uris?.map((value) => ({ type: 'url' as const, value })) ??
      requested.filter((name) => name.type === 'url')),
  ];
  const usages =
    options.usages === undefined ? x509.KeyUsageFlags.digitalSignature : options.usages;
  return x509.X509CertificateGenerator.create({
    subject: options.commonName === undefined ? csr.subject : [{ CN: [options.commonName] }],
    issuer: issuer.certificate.subject,
    publicKey: options.publicKey ?? csr.publicKey,
    signingKey: issuer.privateKey,
    signingAlgorithm: algorithm,
    notBefore: options.notBefore ?? new Date(Date.now() - day),
    notAfter: options.notAfter ?? new Date(Date.now() + 7 * day),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...(usages === null ? [] : [new x509.KeyUsagesExtension(usages, true)]),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.certificate.publicKey),
      ...(options.extensions ?? []),
    ],
  });
}

/** A self-signed leaf for a fresh key: what no CA issued. */
export async function selfSignedLeaf(uri: string): Promise<x509.X509Certificate> {
  const keys = await newKeys();
  return x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=self',
    keys: keys as never,
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - day),
    notAfter: new Date(Date.now() + day),
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: uri }]),
    ],
  });
}

/** PEM of certificates, one block each, in the order given. */
export function pemChain(...certificates: x509.X509Certificate[]): string {
  return certificates.map((certificate) => certificate.toString('pem')).join('\n');
}

/**
 * What an IACA adds to a document signer's CSR (ISO/IEC 18013-5 Annex B.1.4), beyond `signLeaf`'s
 * defaults: the mdoc extended key usage first, issuer alternative name, CRL distribution point, key id.
 */
export async function documentSignerExtensions(csrPem: string): Promise<x509.Extension[]> {
  const csr = new x509.Pkcs10CertificateRequest(csrPem);
  return [
    new x509.ExtendedKeyUsageExtension(['1.0.18013.5.1.2'], true),
    new x509.IssuerAlternativeNameExtension([{ type: 'url', value: 'https://iaca.example' }]),
    new x509.CRLDistributionPointsExtension(['https://iaca.example/crl']),
    await x509.SubjectKeyIdentifierExtension.create(csr.publicKey),
  ];
}
