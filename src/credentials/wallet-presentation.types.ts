/**
 * Why a wallet's presentation does not count: a stable code (docs/oid4vp.md lists them) beside a
 * reason a person understands.
 */
export type PresentationFailureCode =
  | 'presentation_malformed'
  | 'issuer_unresolved'
  | 'issuer_not_trusted'
  | 'certificate_chain_invalid'
  | 'signature_invalid'
  | 'disclosure_invalid'
  | 'key_binding_missing'
  | 'key_binding_invalid'
  | 'nonce_mismatch'
  | 'audience_mismatch'
  | 'key_binding_stale'
  | 'credential_expired'
  | 'credential_not_yet_valid'
  | 'credential_revoked'
  | 'credential_suspended'
  | 'status_unavailable'
  | 'device_signature_invalid'
  | 'doctype_mismatch';

/**
 * The X.509 chain an SD-JWT VC's `x5c` header or an mdoc's `x5chain` carried, once it validated
 * (HAIP 1.0, ISO/IEC 18013-5 §9.1.2.4).
 */
export interface X5cChainSummary {
  /** The leaf certificate's subject: whose key signed the credential. */
  leafSubject: string;
  /** The tenant's trust anchor the chain ends at; null when the tenant has none (any valid chain). */
  anchorSubject: string | null;
  /** Subject and authority key identifiers of the chain's certificates, base64url (DCQL `aki`). */
  keyIdentifiers: string[];
}

/** One credential a wallet presented, after every check passed. */
export interface VerifiedPresentation {
  format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
  /**
   * The issuer's identifier: the `iss` URL or DID of an SD-JWT VC, the issuer of a W3C VC, the
   * subject of an mdoc's document signer certificate.
   */
  issuer: string;
  /** dc+sd-jwt: the credential's `vct`. */
  vct?: string;
  /** ldp_vc: the credential's `type`. */
  types?: string[];
  /** mso_mdoc: the document's `docType` (ISO/IEC 18013-5 §8.3.2.1.2.2). */
  doctype?: string;
  /**
   * What DCQL claim paths are evaluated over, disclosed claims only. dc+sd-jwt: the payload with the
   * disclosed claims in place and no `_sd`, `_sd_alg` or `cnf`; ldp_vc: the whole credential without
   * its proof (paths start with `credentialSubject`); mso_mdoc: the presented elements by namespace.
   */
  claims: Record<string, unknown>;
  /** RFC 7638 SHA-256 thumbprint (base64url) of the key the holder proved, or null without binding. */
  holderKeyThumbprint: string | null;
  /** Whether the holder proved its key (key binding JWT, or the presentation's proof). */
  holderBinding: boolean;
  /** The status check's result; `none` when the credential names no status. */
  status: 'valid' | 'revoked' | 'suspended' | 'none';
  /** dc+sd-jwt signed by an `x5c` leaf, or an mdoc: the chain that vouched for it. */
  x5c?: X5cChainSummary;
}

export type PresentationCheck =
  | { verified: true; presentation: VerifiedPresentation }
  | {
      verified: false;
      code: PresentationFailureCode;
      reason: string;
      /**
       * Set when the check that failed came after the holder proved it answers this request: the
       * credential's issuer signature and trust verified, and its holder proof (a KB-JWT signed by the
       * `cnf` key, or the presentation's proof by the credential's subject) names the request's nonce
       * and client id. Only such a failure may end an OpenID4VP request (docs/oid4vp.md).
       */
      bound?: true;
    };

/** What a tenant trusts, as stored: its trusted issuers' ids and its X.509 anchors' PEMs. */
export interface TenantTrust {
  issuers: string[];
  anchors: string[];
}

/** What the verifier of an OpenID4VP request checks one presentation against. */
export interface PresentationExpectation {
  tenantId: string;
  format: VerifiedPresentation['format'];
  /**
   * dc+sd-jwt: the compact SD-JWT with its KB-JWT; ldp_vc: a Verifiable Presentation object;
   * mso_mdoc: the base64url of a CBOR `DeviceResponse` (OpenID4VP 1.0 appendix B.2.4).
   */
  presentation: unknown;
  /**
   * mso_mdoc: the `SessionTranscript` (CBOR) the device signature must cover, chosen by the caller
   * for its flow (OpenID4VP 1.0 appendix B.2.6.1 for redirects, B.2.6.2 for the DC API).
   */
  sessionTranscript?: Uint8Array;
  /** mso_mdoc: the doctype the query asks for (`meta.doctype_value`). */
  doctype?: string;
  /** The request's nonce: the KB-JWT's `nonce`, or the presentation proof's `challenge`. */
  nonce: string;
  /** The request's client_id: the KB-JWT's `aud`, or the presentation proof's `domain`. */
  clientId: string;
  /** The request's own list; undefined: the tenant's list (TrustedIssuerPolicy), else any issuer. */
  trustedIssuers?: readonly string[];
  /**
   * The tenant's trusted issuers and anchors as read with the request the answer names, in this
   * answer's round trip; undefined: read here.
   */
  tenantTrust?: TenantTrust;
  /** Aborted when the request's time is up: no fetch outlives it. */
  signal: AbortSignal;
}
