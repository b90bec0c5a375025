import {
  ChainRefusal,
  issuedBy,
  parsePemChain,
  publicJwkOfCertificate,
  selfSigned,
  type CertificateFacts,
  type ParsedCertificate,
} from './certificate.js';
import { documentSignerProfileGap } from './document-signer.js';

/** What an imported chain must prove about its leaf (docs/certificates.md, Importing a chain). */
export interface LeafExpectation {
  /** The key the leaf must certify: a P-256 JWK. */
  publicJwk: { x: string; y: string };
  now: Date;
  /**
   * `x5c`: a JWS chain whose leaf names at least one of this URI or this DNS name (subjectAltName);
   * `document_signer`: an mdoc document signer with the ISO/IEC 18013-5 Annex B.1.4 profile.
   */
  profile: { purpose: 'x5c'; uri: string; dnsName: string } | { purpose: 'document_signer' };
}

/** A chain that passed: DER, leaf first, a trailing root left out (HAIP 1.0 `x5c`), and the leaf's facts. */
export interface AcceptedChain {
  chain: Buffer[];
  leaf: CertificateFacts;
}

/**
 * Checks a PEM chain, leaf first, for a tenant's key; throws a ChainRefusal naming the first reason it
 * fails. Each link is checked by name and signature, each issuer must be a CA, and every certificate
 * must be valid now; path validation up to trust anchors is the verifier's, not this check's.
 */
export function acceptImportedChain(pem: string, expected: LeafExpectation): AcceptedChain {
  const certificates = parsePemChain(pem);
  const [leaf] = certificates as [ParsedCertificate, ...ParsedCertificate[]];
  if (safely(() => selfSigned(leaf.der))) {
    throw new ChainRefusal(
      'self-signed-leaf',
      'The leaf is self-signed: import a leaf a certificate authority issued, followed by its intermediates.',
    );
  }
  let jwk: Record<string, unknown> = {};
  try {
    jwk = publicJwkOfCertificate(leaf.der);
  } catch {
    // A key node:crypto cannot read is not the tenant's.
  }
  if (
    jwk.kty !== 'EC' ||
    jwk.crv !== 'P-256' ||
    jwk.x !== expected.publicJwk.x ||
    jwk.y !== expected.publicJwk.y
  ) {
    throw new ChainRefusal(
      'key-mismatch',
      'The leaf certifies another key than the tenant’s ES256 key: have the CA sign the tenant’s CSR (POST /ctrl/api/v1.0/certificates/csr).',
    );
  }
  if (!leaf.facts.digitalSignature) {
    throw new ChainRefusal(
      'no-digital-signature',
      'The leaf’s keyUsage does not name digitalSignature, which signing credentials needs.',
    );
  }
  leafProfileCheck(leaf, expected.profile);
  certificates.forEach(({ facts }, index) => {
    if (facts.notBefore <= expected.now && expected.now < facts.notAfter) return;
    throw new ChainRefusal(
      'not-valid-now',
      `Certificate ${index + 1} of the chain (${facts.subject}) is valid from ${facts.notBefore.toISOString()} to ${facts.notAfter.toISOString()}, not now.`,
    );
  });
  for (let index = 1; index < certificates.length; index++) {
    const [child, parent] = [certificates[index - 1], certificates[index]];
    if (!parent.facts.ca || !safely(() => issuedBy(child.der, parent.der))) {
      throw new ChainRefusal(
        'chain-broken',
        `Certificate ${index + 1} of the chain (${parent.facts.subject}) is not a CA that issued certificate ${index} (${child.facts.subject}): give the chain leaf first, each certificate followed by its issuer.`,
      );
    }
  }
  const last = certificates.at(-1)!;
  const withoutRoot =
    certificates.length > 1 && safely(() => selfSigned(last.der))
      ? certificates.slice(0, -1)
      : certificates;
  return { chain: withoutRoot.map(({ der }) => der), leaf: leaf.facts };
}

/** Refuses a leaf that does not meet its purpose's profile, naming what it misses. */
function leafProfileCheck(leaf: ParsedCertificate, profile: LeafExpectation['profile']): void {
  if (profile.purpose === 'document_signer') {
    const gap = documentSignerProfileGap(leaf.der);
    if (gap === undefined) return;
    throw new ChainRefusal(
      'profile-unsuitable',
      `The leaf is no mdoc document signer (ISO/IEC 18013-5 Annex B.1.4): ${gap}`,
    );
  }
  const dnsName = profile.dnsName.toLowerCase();
  if (
    !leaf.facts.uris.includes(profile.uri) &&
    !leaf.facts.dnsNames.some((name) => name.toLowerCase() === dnsName)
  ) {
    throw new ChainRefusal(
      'names-mismatch',
      `The leaf's subjectAltName names neither the tenant's credential issuer URI ${profile.uri} nor its host ${profile.dnsName}.`,
    );
  }
}

/** A check on a certificate node:crypto cannot read counts as failed. */
function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
