import { acceptedJwsAlgs, type JoseSigningKey } from '../../jose/algorithms.js';
import { signCompactJws } from '../../jose/jws.js';
import { type ResponseMode } from '../requests/wallet-requests.js';

/** The audience of a request object a wallet fetches (OpenID4VP 1.0 §5.8, static discovery). */
export const selfIssuedAudience = 'https://self-issued.me/v2';
/** The JWS `typ` of a request object (RFC 9101 §10.8, OpenID4VP 1.0 §5). */
export const requestObjectType = 'oauth-authz-req+jwt';
/** What a JWE answer may be encrypted with (HAIP 1.0: ECDH-ES with A128GCM or A256GCM). */
export const responseEncryptionAlg = 'ECDH-ES';
export const responseEncryptionEncs = ['A128GCM', 'A256GCM'] as const;

/**
 * The formats and algorithms this verifier checks (OpenID4VP 1.0 Appendix B): SD-JWT VCs signed and
 * key-bound with any JWS algorithm we verify (ES256; Ed25519 as `EdDSA` or, RFC 9864, `Ed25519`),
 * Data Integrity presentations with the cryptosuites we verify, mdocs signed ES256.
 */
export const vpFormatsSupported = {
  'dc+sd-jwt': {
    'sd-jwt_alg_values': [...acceptedJwsAlgs],
    'kb-jwt_alg_values': [...acceptedJwsAlgs],
  },
  ldp_vc: {
    proof_type_values: ['DataIntegrityProof'],
    cryptosuite_values: ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019'],
  },
  // Appendix B.2.2, HAIP 1.0 §7: COSE ES256 (-7) for the issuer's MSO and the device signature.
  mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
};

/** What a request object says, from the request's row and its secrets. */
export interface RequestObjectInput {
  clientId: string;
  responseMode: ResponseMode;
  responseUri: string;
  nonce: string;
  state: string;
  dcqlQuery: Record<string, unknown>;
  /** direct_post.jwt: the private P-256 JWK (with its kid) whose public part the wallet encrypts to. */
  responseKey?: Record<string, unknown>;
  /** The wallet's `wallet_nonce` of a POST (OpenID4VP 1.0 §5.10), echoed. */
  walletNonce?: string;
  now: Date;
  expiresAt: Date;
}

/**
 * The verifier's `client_metadata` (OpenID4VP 1.0 §5.1): the formats it checks and, for an encrypted
 * answer (direct_post.jwt, dc_api.jwt; §8.3), the request's own key and the `enc` values (HAIP 1.0).
 */
export function clientMetadataOf(
  responseMode: ResponseMode,
  responseKey: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const clientMetadata: Record<string, unknown> = { vp_formats_supported: vpFormatsSupported };
  if (responseMode === 'direct_post.jwt' || responseMode === 'dc_api.jwt') {
    if (responseKey === undefined) throw new Error(`A ${responseMode} request has no key`);
    clientMetadata.jwks = { keys: [encryptionJwkOf(responseKey)] };
    clientMetadata.encrypted_response_enc_values_supported = [...responseEncryptionEncs];
  }
  return clientMetadata;
}

/** The request object's claims (OpenID4VP 1.0 §5.1, §5.2; RFC 9101 §4). */
export function requestObjectClaims(input: RequestObjectInput): Record<string, unknown> {
  const clientMetadata = clientMetadataOf(input.responseMode, input.responseKey);
  // No `iss`: wallets compare it with the DID of the kid (OWF's library does), not with client_id.
  return {
    aud: selfIssuedAudience,
    iat: Math.floor(input.now.getTime() / 1000),
    exp: Math.floor(input.expiresAt.getTime() / 1000),
    client_id: input.clientId,
    response_type: 'vp_token',
    response_mode: input.responseMode,
    response_uri: input.responseUri,
    nonce: input.nonce,
    state: input.state,
    dcql_query: input.dcqlQuery,
    client_metadata: clientMetadata,
    ...(input.walletNonce === undefined ? {} : { wallet_nonce: input.walletNonce }),
  };
}

/** The public part of the response key, as the wallet encrypts to it: only public members. */
export function encryptionJwkOf(privateJwk: Record<string, unknown>): Record<string, unknown> {
  const { kty, crv, x, y, kid } = privateJwk;
  return { kty, crv, x, y, kid, use: 'enc', alg: responseEncryptionAlg };
}

/** What signs the request object: the tenant's DID key, named by a DID URL of its DID. */
export interface RequestObjectSigner {
  /** `did:key:z…#z…`: the verification method, which the wallet resolves from the DID alone. */
  verificationMethod: string;
  /** The key's algorithm as the Data Integrity signer names it (`Ed25519`). */
  algorithm: string;
  sign(options: { data: Uint8Array }): Promise<Uint8Array>;
}

/** A compact JWS (RFC 7515) of the claims, EdDSA (RFC 8037) by the tenant's Ed25519 DID key. */
export async function signRequestObject(
  claims: Record<string, unknown>,
  signer: RequestObjectSigner,
): Promise<string> {
  // JOSE names an Ed25519 signature EdDSA (RFC 8037 §3.1); the DID key is Ed25519 (src/did/).
  if (signer.algorithm !== 'Ed25519') throw new Error(`No JOSE name for ${signer.algorithm}`);
  const header = { alg: 'EdDSA', typ: requestObjectType, kid: signer.verificationMethod };
  return signCompactJws(header, claims, (data) => signer.sign({ data }));
}

/**
 * A compact JWS of the claims for an `x509_hash` or `x509_san_dns` client (OpenID4VP 1.0 §5.9.3):
 * ES256 by the key the leaf certifies, the chain (leaf first, no root, HAIP 1.0) in `x5c`.
 */
export function signX509RequestObject(
  claims: Record<string, unknown>,
  x5c: readonly string[],
  key: JoseSigningKey,
): Promise<string> {
  if (key.alg !== 'ES256') throw new Error(`An x509 client signs ES256, not ${key.alg}`);
  const header = { alg: key.alg, typ: requestObjectType, x5c: [...x5c] };
  return signCompactJws(header, claims, (data) => key.sign(data));
}
