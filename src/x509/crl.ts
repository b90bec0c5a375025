import { createPrivateKey, webcrypto } from 'node:crypto';
import { type AuthorityMaterial } from './authority.js';
import { libraryKey, x509 } from './x509.js';

/**
 * The authority's CRL (RFC 5280 §5), DER, signed with its key: no entry (the service revokes no
 * certificate it issued; a replaced one stays valid until its notAfter), valid from `thisUpdate` to
 * `nextUpdate`, with the authority key identifier (§5.2.1).
 */
export async function makeCrl(
  authority: AuthorityMaterial,
  thisUpdate: Date,
  nextUpdate: Date,
): Promise<Buffer> {
  const issuer = new x509.X509Certificate(authority.chain[0]);
  const key = createPrivateKey({ key: authority.privateKey, format: 'der', type: 'pkcs8' });
  const curve = key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'P-384' : 'P-256';
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    authority.privateKey,
    { name: 'ECDSA', namedCurve: curve },
    false,
    ['sign'],
  );
  const crl = await x509.X509CrlGenerator.create({
    issuer: issuer.subjectName,
    thisUpdate,
    nextUpdate,
    signingAlgorithm: { name: 'ECDSA', hash: curve === 'P-384' ? 'SHA-384' : 'SHA-256' },
    signingKey: libraryKey(signingKey),
    extensions: [await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey)],
    entries: [],
  });
  return Buffer.from(crl.rawData);
}
