import {
  type Certificate,
  certificateLimits,
  isSelfSigned,
  keyIdentifiers,
  parseCertificate,
  signedBy,
  usage,
} from './chain-parts.js';

export {
  alternativeNames,
  type Certificate,
  certificateLimits,
  isSelfSigned,
  keyIdentifiers,
  parseCertificate,
  pemOf,
  publicKeyJwk,
} from './chain-parts.js';

/** Why a chain does not validate: a short word for code, beside a sentence for people. */
export type ChainRefusal =
  | 'malformed'
  | 'not_linked'
  | 'signature_invalid'
  | 'not_valid_at'
  | 'not_ca'
  | 'path_too_long'
  | 'key_usage'
  | 'critical_extension'
  | 'untrusted';

export type ChainResult =
  | {
      ok: true;
      leaf: Certificate;
      /** The trust anchor the chain ends at; null when any valid chain was accepted. */
      anchor: Certificate | null;
      /** The chain as presented, leaf first. */
      chain: Certificate[];
    }
  | { ok: false; reason: ChainRefusal; text: string };

const refuse = (reason: ChainRefusal, text: string): ChainResult => ({ ok: false, reason, text });

/**
 * Validates an `x5c` chain (RFC 7515 §4.1.6: base64 DER, leaf first) at `at` (RFC 5280 §6, in the
 * part HAIP 1.0 needs): each certificate within its validity period and with no critical extension
 * left unread, each one issued (name and signature) by the next, every issuer a CA
 * (basicConstraints, pathLenConstraint) with keyCertSign, the leaf no CA and with digitalSignature.
 * With `anchors`, the last certificate must be one of them or be issued by one (which is checked as
 * an issuer too); with `anchors` undefined any chain that holds together passes: self-signed or not,
 * its last certificate proves nothing, so it is not required (docs/trust-anchors.md).
 */
export function validateChain(
  x5c: unknown,
  anchors: readonly Certificate[] | undefined,
  at: Date,
): ChainResult {
  const chain = parseChain(x5c);
  if (!Array.isArray(chain)) return chain;
  const last = chain[chain.length - 1];
  let anchor: Certificate | null = null;
  let path = chain;
  if (anchors !== undefined) {
    anchor = anchors.find((candidate) => candidate.der.equals(last.der)) ?? null;
    if (anchor === null) {
      anchor = anchors.find((candidate) => issued(last, candidate)) ?? null;
      if (anchor === null) {
        return refuse(
          'untrusted',
          `the chain's last certificate (${last.subject}) is neither a trust anchor nor issued by one`,
        );
      }
      path = [...chain, anchor];
    }
  }
  return pathProblem(path, at) ?? { ok: true, leaf: chain[0], anchor, chain };
}

/** The `x5c` value parsed within the limits, or why it is not a chain. */
function parseChain(x5c: unknown): Certificate[] | ChainResult {
  if (!Array.isArray(x5c) || x5c.length === 0) {
    return refuse('malformed', 'x5c is not a non-empty array');
  }
  if (x5c.length > certificateLimits.chainLength) {
    return refuse('malformed', `x5c holds more than ${certificateLimits.chainLength} certificates`);
  }
  const chain: Certificate[] = [];
  for (const [index, element] of x5c.entries()) {
    const certificate = typeof element === 'string' ? parseCertificate(element) : 'is not a string';
    if (typeof certificate === 'string') return refuse('malformed', `x5c[${index}] ${certificate}`);
    chain.push(certificate);
  }
  return chain;
}

/** Whether `issuer` names and signed `certificate`. */
function issued(certificate: Certificate, issuer: Certificate): boolean {
  return linked(certificate, issuer) && signedBy(certificate, issuer);
}

/**
 * Whether `certificate` names `issuer` (RFC 5280 §6.1.3 (a)(4)): its issuer name is the issuer's
 * subject, and its authority key identifier, when both identifiers are there, is the issuer's.
 */
function linked(certificate: Certificate, issuer: Certificate): boolean {
  if (certificate.issuer !== issuer.subject) return false;
  const { authorityKeyIdentifier } = keyIdentifiers(certificate);
  const { subjectKeyIdentifier } = keyIdentifiers(issuer);
  return (
    authorityKeyIdentifier === undefined ||
    subjectKeyIdentifier === undefined ||
    authorityKeyIdentifier === subjectKeyIdentifier
  );
}

/** The first problem of a path, leaf first, its last certificate trusted as it stands. */
function pathProblem(path: Certificate[], at: Date): ChainResult | undefined {
  for (const [index, certificate] of path.entries()) {
    const where = index === 0 ? 'the leaf' : `certificate ${index} (${certificate.subject})`;
    if (at < certificate.notBefore || at > certificate.notAfter) {
      return refuse(
        'not_valid_at',
        `${where} is valid from ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}, not at ${at.toISOString()}`,
      );
    }
    const critical = certificate.unknownCritical;
    if (critical !== undefined) {
      return refuse('critical_extension', `${where} has the critical extension ${critical}`);
    }
    const next = path[index + 1];
    if (next !== undefined && !linked(certificate, next)) {
      return refuse('not_linked', `${where} does not name the next certificate as its issuer`);
    }
    if (next !== undefined && !signedBy(certificate, next)) {
      return refuse(
        'signature_invalid',
        `${where}'s signature does not verify with its issuer's key`,
      );
    }
    const problem =
      index === 0 ? leafProblem(certificate) : issuerProblem(certificate, index, where);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function leafProblem(leaf: Certificate): ChainResult | undefined {
  // A CA's key signs certificates; a credential signed with it would stand for every certificate.
  if (leaf.ca) return refuse('not_ca', 'the leaf is a CA certificate');
  const usages = leaf.keyUsage;
  if (usages === undefined || (usages & usage.digitalSignature) === 0) {
    return refuse('key_usage', 'the leaf has no keyUsage with digitalSignature');
  }
  return undefined;
}

/** An issuer at `index` (1: the leaf's issuer) has `index - 1` intermediates below it. */
function issuerProblem(
  certificate: Certificate,
  index: number,
  where: string,
): ChainResult | undefined {
  const { ca, pathLength } = certificate;
  if (!ca) return refuse('not_ca', `${where} issues a certificate but is not a CA`);
  if (pathLength !== undefined && index - 1 > pathLength) {
    return refuse(
      'path_too_long',
      `${where} allows ${pathLength} intermediate certificates below it, the chain has ${index - 1}`,
    );
  }
  const usages = certificate.keyUsage;
  if (usages === undefined || (usages & usage.keyCertSign) === 0) {
    return refuse('key_usage', `${where} has no keyUsage with keyCertSign`);
  }
  return undefined;
}

/** Whether a certificate may be a trust anchor: a CA's, or a self-signed one (a lone issuer's). */
export function anchorProblem(certificate: Certificate): string | undefined {
  if (certificate.ca || isSelfSigned(certificate)) return undefined;
  return 'is neither a CA certificate nor self-signed';
}
