import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  clientAuthenticationClientAttestationJwt,
  createClientAttestationJwt,
  HashAlgorithm,
  Oauth2Client,
  type CallbackContext,
  type JwtSigner,
} from '@openid4vc/oauth2';
import { CompactSign, SignJWT, type CryptoKey, type JWK } from 'jose';
import { type TestCertificate } from './x509-test-pki.js';
import { type WalletKey } from './oid4vci-wallet.js';

type Json = Record<string, unknown>;

/**
 * OWF's signJwt callback (@openid4vc/oauth2): an `x5c` signer signs with `attester`'s key, a `jwk`
 * signer with the wallet key whose public JWK it names.
 */
export function signJwtWith(attester: TestCertificate | undefined, keys: WalletKey[]) {
  const signJwt: CallbackContext['signJwt'] = async (signer: JwtSigner, { header, payload }) => {
    let key: CryptoKey;
    let publicJwk: JWK | undefined;
    if (signer.method === 'x5c' && attester !== undefined) {
      key = attester.keys.privateKey;
    } else if (signer.method === 'jwk') {
      const wallet = keys.find((candidate) => candidate.publicJwk.x === signer.publicJwk.x);
      if (wallet === undefined) throw new Error('no such wallet key');
      key = wallet.privateKey;
      publicJwk = wallet.publicJwk;
    } else throw new Error(`no signer for ${signer.method}`);
    const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader(header)
      .sign(key);
    return { jwt, signerJwk: (publicJwk ?? {}) as never };
  };
  return signJwt;
}

/** A wallet attestation made by OWF's library: signed by `attester` with its chain, for `instance`. */
export function owfAttestation(
  attester: TestCertificate,
  chain: TestCertificate[],
  instance: WalletKey,
  options: { clientId?: string; expiresAt?: Date } = {},
): Promise<string> {
  return createClientAttestationJwt({
    issuer: 'https://wallet-provider.example',
    clientId: options.clientId ?? 'wallet-client',
    expiresAt: options.expiresAt ?? new Date(Date.now() + 3_600_000),
    confirmation: { jwk: instance.publicJwk as never },
    signer: { method: 'x5c', alg: 'ES256', x5c: chain.map((certificate) => certificate.base64) },
    callbacks: { signJwt: signJwtWith(attester, []) },
  });
}

/** A PoP made by hand (draft -07 §5.2), each claim overridable. */
export function attestationPop(
  instance: WalletKey,
  audience: string,
  claims: Json = {},
): Promise<string> {
  return new SignJWT({
    aud: audience,
    jti: randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    ...claims,
  })
    .setProtectedHeader({ alg: instance.alg, typ: 'oauth-client-attestation-pop+jwt' })
    .sign(instance.privateKey);
}

/** OWF's client authentication with the attestation: both headers, its own PoP each request. */
export function owfAttestedAuthentication(attestation: string, keys: WalletKey[]) {
  return clientAuthenticationClientAttestationJwt({
    clientAttestationJwt: attestation,
    callbacks: {
      signJwt: signJwtWith(undefined, keys),
      generateRandom: (length) => randomBytes(length),
    },
  });
}

/** OWF's OAuth client authenticating with the attestation (its own PoP each request). */
export function owfAttestedClient(attestation: string, keys: WalletKey[]): Oauth2Client {
  const signJwt = signJwtWith(undefined, keys);
  return new Oauth2Client({
    callbacks: {
      fetch,
      hash: (data, alg) => {
        if (alg !== HashAlgorithm.Sha256) throw new Error(`unexpected hash ${alg}`);
        return createHash('sha256').update(data).digest();
      },
      generateRandom: (length) => randomBytes(length),
      signJwt,
      clientAuthentication: owfAttestedAuthentication(attestation, keys),
    },
  });
}

/** A key attestation (OpenID4VCI 1.0 Appendix D.1) signed by `attester` with its chain. */
export function keyAttestation(
  attester: TestCertificate,
  chain: TestCertificate[],
  attested: WalletKey[],
  claims: Json = {},
): Promise<string> {
  return new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    attested_keys: attested.map((key) => key.publicJwk),
    key_storage: ['iso_18045_high'],
    ...claims,
  })
    .setProtectedHeader({
      alg: 'ES256',
      typ: 'key-attestation+jwt',
      x5c: chain.map((certificate) => certificate.base64),
    })
    .sign(attester.keys.privateKey);
}
