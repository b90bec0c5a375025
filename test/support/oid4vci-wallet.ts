import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  clientAuthenticationAnonymous,
  type ClientAuthenticationCallback,
  HashAlgorithm,
  type SignJwtCallback,
  type VerifyJwtCallback,
} from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import {
  calculateJwkThumbprint,
  CompactSign,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { ed25519DidKey } from '../../src/did/did-key.js';

type Json = Record<string, unknown>;

/** A wallet's key pair: the private key for jose, the public JWK for headers. */
export interface WalletKey {
  alg: 'ES256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function walletKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<WalletKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, publicJwk: await exportJWK(publicKey) };
}

export const thumbprintOf = (key: WalletKey) => calculateJwkThumbprint(key.publicJwk, 'sha256');

/** `did:jwk:<base64url JWK>`, with its verification method `#0`. */
export function didJwkOf(key: WalletKey): string {
  return `did:jwk:${Buffer.from(JSON.stringify(key.publicJwk)).toString('base64url')}`;
}

/** The did:key of an Ed25519 wallet key. */
export function didKeyOf(key: WalletKey): string {
  return ed25519DidKey(Buffer.from(key.publicJwk.x!, 'base64url')).did;
}

/**
 * A wallet built on OWF's library (@openid4vc/openid4vci): its JWTs signed with jose, by the key whose
 * public JWK (or DID) the library names; hashes and randomness from node:crypto. With `verifyJwt`, it
 * also asks for signed issuer metadata (the library takes it but sends no Accept of its own: the
 * wallet's GETs say `application/jwt, application/json`) and verifies it with that callback; the
 * client's type leaves the callback out, but 0.4.6 resolves metadata with it when it is there.
 * Anonymous unless told (the authorization code flow's public client sends its `client_id`). `send`
 * takes the place of fetch (a system test pins each request to one instance with it).
 */
export function openid4vciWallet(
  keys: WalletKey[],
  dids: Record<string, WalletKey> = {},
  verifyJwt?: VerifyJwtCallback,
  clientAuthentication: ClientAuthenticationCallback = clientAuthenticationAnonymous(),
  send: typeof fetch = fetch,
) {
  return new Openid4vciClient({
    callbacks: walletCallbacks(keys, dids, verifyJwt, clientAuthentication, send),
  });
}

/** The callbacks of `openid4vciWallet`, for OWF's OAuth 2 client (`Oauth2Client`) as well. */
export function walletCallbacks(
  keys: WalletKey[],
  dids: Record<string, WalletKey> = {},
  verifyJwt?: VerifyJwtCallback,
  clientAuthentication: ClientAuthenticationCallback = clientAuthenticationAnonymous(),
  send: typeof fetch = fetch,
) {
  const keyOf = (signer: { method: string; publicJwk?: JWK; didUrl?: string }): WalletKey => {
    const key =
      signer.method === 'did'
        ? dids[signer.didUrl!.split('#')[0]]
        : keys.find((candidate) => candidate.publicJwk.x === signer.publicJwk?.x);
    if (key === undefined) throw new Error(`no wallet key for ${JSON.stringify(signer)}`);
    return key;
  };
  return {
    fetch: verifyJwt === undefined ? send : prefersSignedMetadata,
    hash: (data: Uint8Array, alg: HashAlgorithm) => {
      if (alg !== HashAlgorithm.Sha256) throw new Error(`unexpected hash ${alg}`);
      return createHash('sha256').update(data).digest();
    },
    generateRandom: (length: number) => randomBytes(length),
    clientAuthentication,
    signJwt: (async (signer, { header, payload }) => {
      const key = keyOf(signer);
      const jwt = await new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader(header)
        .sign(key.privateKey);
      return { jwt, signerJwk: key.publicJwk as never };
    }) satisfies SignJwtCallback,
    ...(verifyJwt === undefined ? {} : { verifyJwt }),
  };
}

/** fetch, with GETs that prefer a JWT (signed metadata, OpenID4VCI 1.0 §12.2.2) to JSON. */
const prefersSignedMetadata: typeof fetch = (input, init) => {
  if (init?.method !== undefined && init.method !== 'GET') return fetch(input, init);
  const headers = new Headers(init?.headers);
  if (!headers.has('accept')) headers.set('accept', 'application/jwt, application/json;q=0.9');
  return fetch(input, { ...init, headers });
};

/** A key proof (OpenID4VCI 1.0 Appendix F.1) made by hand, each part overridable. */
export async function keyProof(
  key: WalletKey,
  options: { aud: string; nonce?: string; header?: Json; payload?: Json; iat?: number },
): Promise<string> {
  const header = {
    alg: key.alg,
    typ: 'openid4vci-proof+jwt',
    jwk: key.publicJwk,
    ...options.header,
  };
  const payload = {
    aud: options.aud,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...options.payload,
  };
  return new SignJWT(payload).setProtectedHeader(header).sign(key.privateKey);
}

/** A DPoP proof (RFC 9449 §4.2) made by hand, each part overridable. */
export async function dpopProof(
  key: WalletKey,
  options: { htu: string; accessToken?: string; header?: Json; payload?: Json },
): Promise<string> {
  const header = { alg: key.alg, typ: 'dpop+jwt', jwk: key.publicJwk, ...options.header };
  const payload = {
    htm: 'POST',
    htu: options.htu,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ...(options.accessToken === undefined
      ? {}
      : { ath: createHash('sha256').update(options.accessToken).digest('base64url') }),
    ...options.payload,
  };
  return new SignJWT(payload).setProtectedHeader(header).sign(key.privateKey);
}
