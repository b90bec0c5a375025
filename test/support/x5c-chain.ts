import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { compactVerify, importX509 } from 'jose';

// The library's types name the DOM's Crypto, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

type Json = Record<string, unknown>;

/** The protected header of a compact JWS (or of an SD-JWT's issuer JWT), not verified. */
export const headerOf = (compact: string): Json =>
  JSON.parse(Buffer.from(compact.split('.')[0], 'base64url').toString('utf8')) as Json;

/** The `x5c` of a JWS header: standard base64 DER certificates, parsed by @peculiar/x509. */
export function certificatesOf(x5c: unknown): x509.X509Certificate[] {
  if (!Array.isArray(x5c) || x5c.length === 0) throw new Error('the header has no x5c');
  return x5c.map((der) => new x509.X509Certificate(Buffer.from(der as string, 'base64')));
}

/** The leaf's SAN URIs. */
export function sanUris(leaf: x509.X509Certificate): string[] {
  const san = leaf.getExtension(x509.SubjectAlternativeNameExtension);
  return (san?.names.items ?? []).filter((name) => name.type === 'url').map((name) => name.value);
}

/**
 * Whether each certificate of the chain is signed by the next and the last by `root` (DER), which the
 * chain itself leaves out (HAIP 1.0): the links a wallet trusting the root checks.
 */
export async function chainsTo(chain: x509.X509Certificate[], root: Buffer): Promise<boolean> {
  const anchor = new x509.X509Certificate(root);
  if (chain.some((certificate) => certificate.equal(anchor))) return false;
  const issuers = [...chain.slice(1), anchor];
  for (const [index, certificate] of chain.entries()) {
    const issuer = issuers[index];
    if (certificate.issuer !== issuer.subject) return false;
    if (!(await certificate.verify({ publicKey: issuer.publicKey, signatureOnly: true }))) {
      return false;
    }
  }
  return anchor.verify({ signatureOnly: true });
}

/** The payload of a compact JWS (an SD-JWT's issuer JWT) that jose verifies with the x5c leaf's key. */
export async function verifiedByLeaf(compact: string): Promise<Json> {
  const jws = compact.split('~')[0];
  const [leaf] = certificatesOf(headerOf(jws).x5c);
  const key = await importX509(leaf.toString('pem'), 'ES256');
  const { payload } = await compactVerify(jws, key, { algorithms: ['ES256'] });
  return JSON.parse(new TextDecoder().decode(payload)) as Json;
}
