import { isJwsAlgorithm } from '../../jose/algorithms.js';
import { type PublicJwk } from '../../jose/jwk.js';
import {
  alternativeNames,
  type Certificate,
  keyIdentifiers,
  publicKeyJwk,
  validateChain,
} from '../../x509/chain.js';
import {
  type PresentationFailureCode,
  type X5cChainSummary,
} from '../wallet-presentation.types.js';
import { publicKeyFor, shown } from './jws.js';

type Json = Record<string, unknown>;

/**
 * The issuer key of an SD-JWT VC whose header carries `x5c` (HAIP 1.0, SD-JWT VC draft §3.5): the
 * leaf's key, once the chain validates at `now` up to one of `anchors` (undefined: any chain that
 * holds together) and the leaf names `iss` (a SAN URI equal to it, or for an https `iss` a SAN
 * dNSName equal to its host). Answers the key with the chain's summary, or the failure.
 */
export function x5cIssuerKey(
  iss: string,
  header: Json,
  anchors: readonly Certificate[] | undefined,
  now: Date,
): { key: PublicJwk; chain: X5cChainSummary } | { code: PresentationFailureCode; reason: string } {
  const result = validateChain(header.x5c, anchors, now);
  if (!result.ok) {
    return result.reason === 'untrusted'
      ? { code: 'issuer_not_trusted', reason: `the credential's x5c chain: ${result.text}` }
      : { code: 'certificate_chain_invalid', reason: `the credential's x5c chain: ${result.text}` };
  }
  if (!namesIssuer(result.leaf, iss)) {
    return {
      code: 'issuer_not_trusted',
      reason: `the x5c leaf certificate (${result.leaf.subject}) names no SAN URI ${shown(iss)} nor its host as a dNSName`,
    };
  }
  const alg = header.alg;
  const key = isJwsAlgorithm(alg) ? publicKeyFor(publicKeyJwk(result.leaf), alg) : 'no alg';
  if (typeof key === 'string') {
    return { code: 'issuer_unresolved', reason: `the x5c leaf certificate's key: ${key}` };
  }
  const identifiers = result.chain.flatMap((certificate) => {
    const { subjectKeyIdentifier, authorityKeyIdentifier } = keyIdentifiers(certificate);
    return [subjectKeyIdentifier, authorityKeyIdentifier].filter((id) => id !== undefined);
  });
  return {
    key,
    chain: {
      leafSubject: result.leaf.subject,
      anchorSubject: result.anchor?.subject ?? null,
      keyIdentifiers: [...new Set(identifiers)],
    },
  };
}

/** Whether the leaf's subject alternative names name `iss` (HAIP 1.0: the issuer identified by x5c). */
function namesIssuer(leaf: Certificate, iss: string): boolean {
  const { uris, dnsNames } = alternativeNames(leaf);
  if (uris.includes(iss)) return true;
  if (!URL.canParse(iss)) return false;
  const url = new URL(iss);
  return (
    url.protocol === 'https:' &&
    dnsNames.some((name) => name.toLowerCase() === url.hostname.toLowerCase())
  );
}
