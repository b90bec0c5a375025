import { webcrypto } from 'node:crypto';
import { libraryKey, x509 } from './x509.js';

/** What a certificate signing request for a P-256 key asks for, and the key's signer. */
export interface CsrRequest {
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  commonName: string;
  /** ISO 3166-1 alpha-2 countryName of the subject, when the profile asks for one. */
  country?: string;
  dnsNames: string[];
  uris: string[];
  /** Extended key usages to ask for (OIDs), e.g. an mdoc document signer's. */
  extendedKeyUsages?: string[];
  /** An ES256 signature (r || s, RFC 7518 §3.4) by the key's holder: the key never comes here. */
  sign: (data: Uint8Array) => Promise<Uint8Array>;
}

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/**
 * A PKCS #10 request (RFC 2986) in PEM for the key, signed through `sign`, asking for the names,
 * keyUsage digitalSignature (RFC 5280 §4.2.1.3, what HAIP 1.0 issuer keys and document signers sign
 * with) and the extended key usages given.
 */
export async function createCsr(request: CsrRequest): Promise<string> {
  const publicKey = await webcrypto.subtle.importKey('jwk', request.publicJwk, ecdsa, true, [
    'verify',
  ]);
  // The generator signs through the provider it is given: this one hands the bytes to the key's holder.
  const holderKey = { algorithm: ecdsa, type: 'private', extractable: false, usages: ['sign'] };
  const provider = {
    subtle: {
      exportKey: (format: 'spki', key: webcrypto.CryptoKey) =>
        webcrypto.subtle.exportKey(format, key),
      sign: async (_algorithm: unknown, key: unknown, data: ArrayBuffer) => {
        if (key !== holderKey) throw new Error('Only the key holder signs this request');
        const signature = await request.sign(new Uint8Array(data));
        return signature.slice().buffer;
      },
    },
  };
  const names = [
    ...request.dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ...request.uris.map((value) => ({ type: 'url' as const, value })),
  ];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: [
        ...(request.country === undefined ? [] : [{ C: [request.country] }]),
        { CN: [request.commonName] },
      ],
      keys: libraryKey({ publicKey, privateKey: holderKey as unknown as webcrypto.CryptoKey }),
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        // RFC 5280 §4.2.1.6: a subjectAltName holds at least one name.
        ...(names.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(names)]),
        ...(request.extendedKeyUsages === undefined
          ? []
          : [new x509.ExtendedKeyUsageExtension(request.extendedKeyUsages, true)]),
      ],
    },
    provider,
  );
  // A signer that answered with another key's signature would make a request no CA accepts.
  if (!(await csr.verify())) throw new Error('The key holder’s signature does not verify');
  return csr.toString('pem');
}
