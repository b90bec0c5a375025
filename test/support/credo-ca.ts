import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { X509Certificate } from '@credo-ts/core';
import * as x509 from '@peculiar/x509';
import { type CredoAgent } from './credo-wallet.js';

// The library's types name the DOM's Crypto and CryptoKey, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

export interface CredoIssuerCa {
  /** The root's certificate (PEM): what a verifier must trust for the issuer's credentials. */
  rootPem: string;
  /** The issuer's leaf certificate as Credo reads it, its private key in Credo's KMS. */
  leaf: X509Certificate;
  /** The `iss` the leaf names (SAN URI and DNS name), which Credo requires of an x5c issuer. */
  issuer: string;
}

/**
 * A root CA and an issuer certificate under it (P-256, made with @peculiar/x509, not with Credo), the
 * leaf's key imported into the agent's KMS, so that Credo signs SD-JWT VCs with `x5c` (HAIP 1.0 §6.1.1).
 */
export async function createCredoIssuerCa(
  agent: CredoAgent,
  host = 'issuer.credo.example',
): Promise<CredoIssuerCa> {
  const rootKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const validity = {
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + day),
  };
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=Credo test root ${crypto.randomUUID()}`,
    keys: rootKeys as never,
    signingAlgorithm: algorithm,
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const leafKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const issuer = `https://${host}`;
  const leaf = await x509.X509CertificateGenerator.create({
    subject: `CN=${host}`,
    issuer: root.subject,
    publicKey: leafKeys.publicKey as never,
    signingKey: rootKeys.privateKey as never,
    signingAlgorithm: algorithm,
    ...validity,
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: host },
        { type: 'url', value: issuer },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(rootKeys.publicKey as never),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
    ],
  });
  const privateJwk = await webcrypto.subtle.exportKey('jwk', leafKeys.privateKey);
  const { keyId } = await agent.kms.importKey({
    privateJwk: { kty: 'EC', crv: 'P-256', x: privateJwk.x!, y: privateJwk.y!, d: privateJwk.d! },
  });
  const credoLeaf = X509Certificate.fromEncodedCertificate(leaf.toString('base64'));
  credoLeaf.keyId = keyId;
  return { rootPem: root.toString('pem'), leaf: credoLeaf, issuer };
}
