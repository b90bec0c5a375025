import { type IssuerMetadataResult } from '@openid4vc/openid4vci';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { type JWK } from 'jose';
import { openid4vciWallet, type WalletKey } from './oid4vci-wallet.js';

type Json = Record<string, unknown>;

/** One base64url JWT part as JSON. */
export const jsonPart = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;

/** The signed payload of an SD-JWT (or any compact JWT), without the disclosures. */
export const signedPayload = (sdJwt: string) => jsonPart(sdJwt.split('~')[0].split('.')[1]);

/**
 * What a wallet does with the offer's link alone, through OWF's library: offer, metadata, token (with
 * DPoP when given a key), nonce, one proof per key, credentials.
 */
export async function receiveCredentials(
  link: string,
  keys: WalletKey[],
  options: { txCode?: string; dpopKey?: WalletKey } = {},
) {
  const wallet = openid4vciWallet(options.dpopKey ? [...keys, options.dpopKey] : keys);
  const credentialOffer = await wallet.resolveCredentialOffer(link);
  const issuerMetadata: IssuerMetadataResult = await wallet.resolveIssuerMetadata(
    credentialOffer.credential_issuer,
  );
  const [configurationId] = credentialOffer.credential_configuration_ids;
  const dpop = options.dpopKey && {
    signer: {
      method: 'jwk' as const,
      publicJwk: options.dpopKey.publicJwk as never,
      alg: options.dpopKey.alg,
    },
  };
  const token = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
    credentialOffer,
    issuerMetadata,
    txCode: options.txCode,
    dpop,
  });
  const { c_nonce: nonce } = await wallet.requestNonce({ issuerMetadata });
  const proofs: string[] = [];
  for (const key of keys) {
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: { method: 'jwk', publicJwk: key.publicJwk as never, alg: key.alg },
      nonce,
    });
    proofs.push(jwt);
  }
  const answer = await wallet.retrieveCredentials({
    issuerMetadata,
    credentialConfigurationId: configurationId,
    proofs: { jwt: proofs },
    accessToken: token.accessTokenResponse.access_token,
    dpop: token.dpop ?? dpop,
  });
  expect(answer.response.status).toBe(200);
  return {
    tokenType: token.accessTokenResponse.token_type,
    credentials: (answer.credentialResponse.credentials as { credential: string | Json }[]).map(
      (entry) => entry.credential,
    ),
  };
}

/**
 * A verifier that has nothing but the credential: the issuer's keys from the JWT VC Issuer Metadata
 * found from `iss` (the well-known segment inserted, SD-JWT VC §5), the status from the Token Status
 * List at the credential's `status.status_list.uri`, all over HTTP; @sd-jwt/sd-jwt-vc does the rest.
 */
export function independentVerifier() {
  const keysOf = async (iss: string): Promise<JWK[]> => {
    const url = new URL(iss);
    const response = await fetch(`${url.origin}/.well-known/jwt-vc-issuer${url.pathname}`);
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as { issuer: string; jwks: { keys: JWK[] } };
    expect(metadata.issuer).toBe(iss);
    return metadata.jwks.keys;
  };
  return new SDJwtVcInstance({
    hasher: (data) =>
      new Uint8Array(
        createHash('sha256')
          .update(typeof data === 'string' ? data : new Uint8Array(data))
          .digest(),
      ),
    hashAlg: 'sha-256',
    verifier: async (data, signature) => {
      const [headerPart, payloadPart] = data.split('.');
      const header = jsonPart(headerPart);
      const keys = await keysOf(jsonPart(payloadPart).iss as string);
      const jwk = keys.find((key) => key.kid === header.kid);
      if (jwk === undefined) return false;
      const key = createPublicKey({ key: jwk as never, format: 'jwk' });
      const bytes = Buffer.from(signature, 'base64url');
      return jwk.alg === 'EdDSA'
        ? verify(null, Buffer.from(data), key, bytes)
        : verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, bytes);
    },
    statusListFetcher: async (uri) => {
      const response = await fetch(uri);
      expect(response.headers.get('content-type')).toBe('application/statuslist+jwt');
      return response.text();
    },
  });
}
