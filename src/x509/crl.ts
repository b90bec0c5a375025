import { authoritySigner, type AuthorityMaterial } from './authority.js';
import { x509 } from './x509.js';

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
  const { issuer, signingKey, signingAlgorithm } = await authoritySigner(authority);
  const crl = await x509.X509CrlGenerator.create({
    issuer: issuer.subjectName,
    thisUpdate,
    nextUpdate,
    signingAlgorithm,
    signingKey,
    extensions: [await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey)],
    entries: [],
  });
  return Buffer.from(crl.rawData);
}
