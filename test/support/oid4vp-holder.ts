import { createHash, createPublicKey, randomBytes, verify, X509Certificate } from 'node:crypto';
import { HashAlgorithm, type Jwk } from '@openid4vc/oauth2';
import { Openid4vpClient, type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { base58 } from '@scure/base';
import { CompactEncrypt, compactVerify, importJWK, SignJWT, type JWK } from 'jose';
import { independentResolver } from './independent-did-resolver.js';
import { type WalletKey } from './oid4vci-wallet.js';

type Json = Record<string, unknown>;

/**
 * The public key a DID URL names, found with Digital Bazaar's did:key resolver (not ours): the
 * verification method must be in the DID's document, as a Multikey.
 */
async function ed25519KeyOf(didUrl: string): Promise<Jwk> {
  const method = (await (await independentResolver('multikey')).get({ did: didUrl })) as Json;
  if (method.id !== didUrl || typeof method.publicKeyMultibase !== 'string')
    throw new Error(`no verification method ${didUrl}`);
  const bytes = base58.decode(method.publicKeyMultibase.slice(1));
  if (bytes[0] !== 0xed || bytes[1] !== 0x01) throw new Error('not an Ed25519 key');
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes.subarray(2)).toString('base64url') };
}

/**
 * The leaf's public key when the `x5c` chain (leaf first) is valid now and ends in a certificate issued
 * by one of `roots` (node's X.509, not the service's code), else undefined.
 */
function trustedLeafJwk(x5c: string[], roots: readonly Buffer[]): Jwk | undefined {
  const chain = x5c.map((der) => new X509Certificate(Buffer.from(der, 'base64')));
  const now = Date.now();
  const anchors = roots.map((root) => new X509Certificate(root));
  const valid = (cert: X509Certificate) =>
    Date.parse(cert.validFrom) <= now && now < Date.parse(cert.validTo);
  const issued = (child: X509Certificate, parent: X509Certificate) =>
    child.checkIssued(parent) && child.verify(parent.publicKey);
  if (chain.length === 0 || !chain.every(valid)) return undefined;
  for (let i = 0; i + 1 < chain.length; i++) if (!issued(chain[i], chain[i + 1])) return undefined;
  if (!anchors.some((root) => valid(root) && issued(chain.at(-1)!, root))) return undefined;
  return chain[0].publicKey.export({ format: 'jwk' }) as Jwk;
}

/**
 * A wallet built on OWF's library (@openid4vc/openid4vp): it checks a request object's signature
 * through the DID its kid names, or through its `x5c` chain up to one of `trustedRoots` (DER), and
 * encrypts direct_post.jwt answers with jose.
 */
export function openid4vpWallet(trustedRoots: readonly Buffer[] = []): Openid4vpClient {
  return new Openid4vpClient({
    callbacks: {
      fetch,
      getX509CertificateMetadata: (certificate) => {
        // Node's reading of the SAN: "DNS:a.example, URI:https://a.example/x" (no commas in ours).
        const names = (
          new X509Certificate(Buffer.from(certificate, 'base64')).subjectAltName ?? ''
        ).split(', ');
        const of = (type: string) =>
          names.filter((name) => name.startsWith(type)).map((name) => name.slice(type.length));
        return { sanDnsNames: of('DNS:'), sanUriNames: of('URI:') };
      },
      hash: (data, alg) => {
        if (alg !== HashAlgorithm.Sha256) throw new Error(`unexpected hash ${alg}`);
        return createHash('sha256').update(data).digest();
      },
      verifyJwt: async (signer, { compact }) => {
        if (signer.method === 'x5c') {
          const leafJwk = trustedLeafJwk(signer.x5c, trustedRoots);
          if (leafJwk === undefined || signer.alg !== 'ES256') return { verified: false };
          const verified = await compactVerify(compact, await importJWK(leafJwk as JWK, 'ES256'), {
            algorithms: ['ES256'],
          }).then(
            () => true,
            () => false,
          );
          return verified ? { verified: true, signerJwk: leafJwk } : { verified: false };
        }
        if (signer.method !== 'did') return { verified: false };
        const jwk = await ed25519KeyOf(signer.didUrl);
        const [header, payload, signature] = compact.split('.');
        const verified = verify(
          null,
          Buffer.from(`${header}.${payload}`),
          createPublicKey({ key: jwk as never, format: 'jwk' }),
          Buffer.from(signature, 'base64url'),
        );
        return verified ? { verified: true, signerJwk: jwk } : { verified: false };
      },
      encryptJwe: async (encryptor, data) => {
        if (encryptor.method !== 'jwk') throw new Error('a JWK is expected');
        const key = await importJWK(encryptor.publicJwk as JWK, encryptor.alg);
        const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
          .setProtectedHeader({
            alg: encryptor.alg,
            enc: encryptor.enc,
            kid: encryptor.publicJwk.kid,
          })
          .setKeyManagementParameters({
            ...(encryptor.apu ? { apu: Buffer.from(encryptor.apu, 'base64url') } : {}),
            ...(encryptor.apv ? { apv: Buffer.from(encryptor.apv, 'base64url') } : {}),
          })
          .encrypt(key);
        return { jwe, encryptionJwk: encryptor.publicJwk };
      },
      signJwt: () => Promise.reject(new Error('this wallet signs no JWT for the verifier')),
      decryptJwe: () => Promise.reject(new Error('this wallet decrypts nothing')),
    },
  });
}

/**
 * What the wallet does with the link alone: parse it, fetch the request object, verify it (an x509
 * client's through `trustedRoots`, DER).
 */
export async function resolveRequest(
  link: string,
  trustedRoots: readonly Buffer[] = [],
): Promise<ResolvedOpenid4vpAuthorizationRequest> {
  const wallet = openid4vpWallet(trustedRoots);
  const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: link });
  return wallet.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: parsed.params,
  });
}

/**
 * Answers a resolved request with the library (plain or encrypted, as the request asks); `enc`: the
 * one content encryption the wallet supports, else A256GCM or A128GCM, as the library picks; the
 * JWE it posts is added to `sent`.
 */
export async function answerRequest(
  resolved: ResolvedOpenid4vpAuthorizationRequest,
  vpToken: Record<string, (string | Json)[]>,
  options: { enc?: 'A128GCM' | 'A256GCM'; sent?: string[] } = {},
): Promise<Response> {
  const { enc } = options;
  const wallet = openid4vpWallet();
  const request = resolved.authorizationRequestPayload;
  const encrypted = request.response_mode === 'direct_post.jwt';
  const created = await wallet.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request,
    authorizationResponsePayload: { vp_token: vpToken as never },
    ...(encrypted
      ? {
          jarm: {
            encryption: { nonce: randomBytes(16).toString('base64url') },
            serverMetadata: {
              authorization_signing_alg_values_supported: [],
              authorization_encryption_alg_values_supported: ['ECDH-ES'],
              authorization_encryption_enc_values_supported: enc ? [enc] : ['A256GCM', 'A128GCM'],
            },
          },
        }
      : {}),
  });
  if (created.jarm) options.sent?.push(created.jarm.responseJwt);
  const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: created.authorizationResponsePayload,
    ...(created.jarm ? { jarm: { responseJwt: created.jarm.responseJwt } } : {}),
  });
  return submitted.response;
}

const sdJwt = new SDJwtVcInstance({
  hasher: (data) =>
    new Uint8Array(
      createHash('sha256')
        .update(typeof data === 'string' ? data : new Uint8Array(data))
        .digest(),
    ),
  hashAlg: 'sha-256',
});

/** The SD-JWT VC with only the disclosures the frame selects (@sd-jwt/sd-jwt-vc), no KB-JWT yet. */
export function disclose(credential: string, frame: Json): Promise<string> {
  return sdJwt.present(credential, frame as never);
}

/**
 * The KB-JWT (RFC 9901 §4.3) over an SD-JWT presentation, signed by `key`: `nonce` and `aud` as given,
 * `sd_hash` over exactly the presentation.
 */
export async function withKeyBinding(
  presentation: string,
  key: WalletKey,
  claims: { nonce: string; aud: string; iat?: number },
): Promise<string> {
  const sdHash = createHash('sha256').update(presentation).digest('base64url');
  const kb = await new SignJWT({
    iat: claims.iat ?? Math.floor(Date.now() / 1000),
    nonce: claims.nonce,
    aud: claims.aud,
    sd_hash: sdHash,
  })
    .setProtectedHeader({ alg: key.alg, typ: 'kb+jwt' })
    .sign(key.privateKey);
  return `${presentation}${kb}`;
}

/**
 * What a wallet presents, made by @sd-jwt/sd-jwt-vc itself: the frame's disclosures and a KB-JWT by
 * `key` (ES256) with the request's nonce and the client id as audience.
 */
export function presentWithKeyBinding(
  credential: string,
  frame: Json,
  key: WalletKey,
  claims: { nonce: string; aud: string },
): Promise<string> {
  if (key.alg !== 'ES256') throw new Error('an ES256 key is expected');
  const holder = new SDJwtVcInstance({
    hasher: (data) =>
      new Uint8Array(
        createHash('sha256')
          .update(typeof data === 'string' ? data : new Uint8Array(data))
          .digest(),
      ),
    hashAlg: 'sha-256',
    kbSignAlg: 'ES256',
    kbSigner: async (data: string) =>
      Buffer.from(
        await crypto.subtle.sign(
          { name: 'ECDSA', hash: 'SHA-256' },
          key.privateKey,
          new TextEncoder().encode(data),
        ),
      ).toString('base64url'),
  });
  return holder.present(credential, frame as never, {
    kb: { payload: { iat: Math.floor(Date.now() / 1000), nonce: claims.nonce, aud: claims.aud } },
  });
}
