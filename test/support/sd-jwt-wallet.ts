import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createHash, randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { type JWK } from 'jose';
import { walletKey, type WalletKey } from './oid4vci-wallet.js';

type Json = Record<string, unknown>;

const hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? data : new Uint8Array(data))
      .digest(),
  );

/** A JWS signature by a jose key pair (ES256: IEEE P1363, as JOSE wants it), base64url. */
export async function signWith(key: WalletKey, input: string): Promise<string> {
  const algorithm = key.alg === 'ES256' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
  const signature = await crypto.subtle.sign(
    algorithm,
    key.privateKey,
    new TextEncoder().encode(input),
  );
  return Buffer.from(signature).toString('base64url');
}

/** A foreign issuer the tests make: its key, and its `iss` and `kid` as the test chooses. */
export interface TestIssuer {
  key: WalletKey;
  iss: string;
  kid?: string;
}

export async function testIssuer(iss: string, kid = 'key-1', alg: 'ES256' | 'EdDSA' = 'ES256') {
  return { key: await walletKey(alg), iss, kid } satisfies TestIssuer;
}

/** A did:jwk issuer: its key resolves from the DID alone, `kid` its `#0` method. */
export async function didJwkIssuer(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<TestIssuer> {
  const key = await walletKey(alg);
  const iss = `did:jwk:${Buffer.from(JSON.stringify(key.publicJwk)).toString('base64url')}`;
  return { key, iss, kid: `${iss}#0` };
}

/**
 * An SD-JWT VC by `issuer`, built by @sd-jwt/sd-jwt-vc: every top-level claim of `claims` disclosable
 * unless `frame` says otherwise, bound to `holder` when given.
 */
export async function issueTestSdJwtVc(
  issuer: TestIssuer,
  options: {
    claims?: Json;
    frame?: Json;
    holder?: WalletKey;
    status?: { idx: number; uri: string };
    extra?: Json;
    header?: Json;
  } = {},
): Promise<string> {
  const claims = options.claims ?? { given_name: 'Erika', family_name: 'Mustermann' };
  const instance = new SDJwtVcInstance({
    hasher,
    hashAlg: 'sha-256',
    saltGenerator: () => randomBytes(16).toString('base64url'),
    signAlg: issuer.key.alg,
    signer: (input) => signWith(issuer.key, input),
  });
  return instance.issue(
    {
      iss: issuer.iss,
      vct: 'https://credentials.example/identity',
      iat: Math.floor(Date.now() / 1000),
      ...(options.holder === undefined ? {} : { cnf: { jwk: options.holder.publicJwk } }),
      ...(options.status === undefined ? {} : { status: { status_list: options.status } }),
      ...options.extra,
      ...claims,
    } as never,
    (options.frame ?? { _sd: Object.keys(claims) }) as never,
    { header: { ...(issuer.kid === undefined ? {} : { kid: issuer.kid }), ...options.header } },
  );
}

/**
 * What a wallet presents: the disclosures of `frame` (every one without it) and a KB-JWT by `holder`
 * over them with `nonce`, `aud` and `iat` (now unless given), through @sd-jwt/sd-jwt-vc.
 */
export async function presentTestSdJwtVc(
  sdJwt: string,
  holder: WalletKey,
  kb: { nonce: string; aud: string; iat?: number },
  frame?: Json,
): Promise<string> {
  const instance = new SDJwtVcInstance({
    hasher,
    hashAlg: 'sha-256',
    kbSignAlg: holder.alg,
    kbSigner: (input) => signWith(holder, input),
  });
  return instance.present(sdJwt, frame as never, {
    kb: {
      payload: {
        nonce: kb.nonce,
        aud: kb.aud,
        iat: kb.iat ?? Math.floor(Date.now() / 1000),
      },
    },
  });
}

/** A compact JWS of `header` and `payload` signed by `key`. */
export async function signedJwt(key: WalletKey, header: Json, payload: Json): Promise<string> {
  const part = (value: Json) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: key.alg, ...header })}.${part(payload)}`;
  return `${input}.${await signWith(key, input)}`;
}

/**
 * A Status List Token (`typ: statuslist+jwt`) by `issuer` at `uri`: `statuses` of `bits` bits each,
 * index 0 in the least significant bits of byte 0.
 */
export function statusListTokenOf(
  issuer: TestIssuer,
  uri: string,
  statuses: number[],
  bits = 1,
  extra: Json = {},
): Promise<string> {
  const bytes = new Uint8Array(Math.ceil((Math.max(statuses.length, 1024) * bits) / 8));
  for (const [index, status] of statuses.entries()) {
    const position = index * bits;
    bytes[Math.floor(position / 8)] |= status << (position % 8);
  }
  return signedJwt(
    issuer.key,
    { typ: 'statuslist+jwt', ...(issuer.kid === undefined ? {} : { kid: issuer.kid }) },
    {
      iss: issuer.iss,
      sub: uri,
      iat: Math.floor(Date.now() / 1000),
      ttl: 300,
      status_list: { bits, lst: deflateSync(bytes).toString('base64url') },
      ...extra,
    },
  );
}

/** JWT VC Issuer Metadata of `issuer` with its key inline. */
export function issuerMetadataOf(issuer: TestIssuer): Json {
  return {
    issuer: issuer.iss,
    jwks: { keys: [{ ...issuer.key.publicJwk, kid: issuer.kid, alg: issuer.key.alg } as JWK] },
  };
}
