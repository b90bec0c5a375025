import {
  createCipheriv,
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
  verify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { Kms, type AgentContext } from '@credo-ts/core';
import { later } from './credo-storage.js';

type PrivateJwk = Kms.KmsJwkPrivate;

/** The curves and algorithms this test backend handles: what a holder and an SD-JWT VC issuer need. */
const signing: Record<string, { crv: string; hash: string | null }> = {
  ES256: { crv: 'P-256', hash: 'sha256' },
  EdDSA: { crv: 'Ed25519', hash: null },
  Ed25519: { crv: 'Ed25519', hash: null },
};
const contentEncryption: Record<string, number> = { A128GCM: 128, A256GCM: 256 };

const curveOf = (jwk: { kty: string; crv?: string }) => (jwk.kty === 'oct' ? undefined : jwk.crv);
const nodeKey = (jwk: object): KeyObject =>
  'd' in jwk
    ? createPrivateKey({ format: 'jwk', key: jwk as JsonWebKey })
    : createPublicKey({ format: 'jwk', key: jwk as JsonWebKey });

/** Concat KDF of RFC 7518 §4.6.2, one SHA-256 round: enough for content keys of up to 256 bits. */
function concatKdf(
  secret: Buffer,
  bits: number,
  algorithm: string,
  apu?: Uint8Array,
  apv?: Uint8Array,
) {
  const part = (data: Uint8Array) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    return Buffer.concat([length, data]);
  };
  const suppPubInfo = Buffer.alloc(4);
  suppPubInfo.writeUInt32BE(bits);
  return createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(secret)
    .update(part(Buffer.from(algorithm)))
    .update(part(apu ?? new Uint8Array()))
    .update(part(apv ?? new Uint8Array()))
    .update(suppPubInfo)
    .digest()
    .subarray(0, bits / 8);
}

/**
 * A Credo 0.6 key management backend on node:crypto with keys in memory: Credo 0.6 ships its own
 * (`NodeKeyManagementService`) only in `@credo-ts/node`, which the registry has no 0.6 release of (its
 * one 0.6 prerelease pins another core and native FFI modules), and Askar downloads a native binary.
 * It signs and verifies ES256 (P-256) and EdDSA (Ed25519), and encrypts ECDH-ES with A128GCM/A256GCM
 * for `direct_post.jwt` answers (OpenID4VP 1.0 §8.3); nothing else.
 */
export class InMemoryNodeKms implements Kms.KeyManagementService {
  public readonly backend = 'node-test';
  readonly #keys = new Map<string, PrivateJwk>();

  public isOperationSupported(_context: AgentContext, operation: Kms.KmsOperation): boolean {
    switch (operation.operation) {
      case 'deleteKey':
      case 'randomBytes':
        return true;
      case 'createKey':
        return ['P-256', 'Ed25519'].includes(curveOf(operation.type) ?? '');
      case 'importKey':
        return ['P-256', 'Ed25519'].includes(curveOf(operation.privateJwk) ?? '');
      case 'sign':
      case 'verify':
        return operation.algorithm in signing;
      case 'encrypt':
        return (
          operation.encryption.algorithm in contentEncryption &&
          operation.keyAgreement?.algorithm === 'ECDH-ES'
        );
      case 'decrypt':
        return false;
    }
  }

  public randomBytes(_context: AgentContext, options: Kms.KmsRandomBytesOptions) {
    return randomBytes(options.length);
  }

  public getPublicKey(_context: AgentContext, keyId: string) {
    return later(() => {
      const key = this.#keys.get(keyId);
      return key ? Kms.publicJwkFromPrivateJwk(key) : null;
    });
  }

  public async createKey<Type extends Kms.KmsCreateKeyType>(
    context: AgentContext,
    options: Kms.KmsCreateKeyOptions<Type>,
  ): Promise<Kms.KmsCreateKeyReturn<Type>> {
    const crv = curveOf(options.type);
    if (crv !== 'P-256' && crv !== 'Ed25519')
      throw new Kms.KeyManagementAlgorithmNotSupportedError(`crv '${crv}'`, this.backend);
    const pair =
      crv === 'P-256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('ed25519');
    const privateJwk = pair.privateKey.export({ format: 'jwk' }) as PrivateJwk;
    const imported = await this.importKey(context, {
      privateJwk: { ...privateJwk, kid: options.keyId ?? randomUUID() },
    });
    return imported as unknown as Kms.KmsCreateKeyReturn<Type>;
  }

  public importKey<Jwk extends PrivateJwk>(
    _context: AgentContext,
    options: Kms.KmsImportKeyOptions<Jwk>,
  ): Promise<Kms.KmsImportKeyReturn<Jwk>> {
    return later(() => {
      const kid = options.privateJwk.kid ?? randomUUID();
      if (this.#keys.has(kid)) throw new Kms.KeyManagementKeyExistsError(kid, this.backend);
      const privateJwk = { ...options.privateJwk, kid };
      nodeKey(privateJwk); // refuses a malformed JWK before it is kept
      this.#keys.set(kid, privateJwk);
      const publicJwk = { ...Kms.publicJwkFromPrivateJwk(privateJwk), kid };
      return { keyId: kid, publicJwk } as unknown as Kms.KmsImportKeyReturn<Jwk>;
    });
  }

  public deleteKey(_context: AgentContext, options: Kms.KmsDeleteKeyOptions) {
    return later(() => {
      return this.#keys.delete(options.keyId);
    });
  }

  public sign(_context: AgentContext, options: Kms.KmsSignOptions) {
    return later(() => {
      const key = this.#key(options.keyId);
      const { hash } = this.#algorithmFor(key, options.algorithm);
      const signature = sign(hash, options.data, { key: nodeKey(key), dsaEncoding: 'ieee-p1363' });
      return { signature: new Uint8Array(signature) };
    });
  }

  public verify(
    _context: AgentContext,
    options: Kms.KmsVerifyOptions,
  ): Promise<Kms.KmsVerifyReturn> {
    return later(() => {
      const jwk = options.key.keyId ? this.#key(options.key.keyId) : options.key.publicJwk;
      if (!jwk || jwk.kty === 'oct' || jwk.kty === 'RSA')
        throw new Kms.KeyManagementAlgorithmNotSupportedError(`key ${jwk?.kty}`, this.backend);
      const { hash } = this.#algorithmFor(jwk, options.algorithm);
      const key = { key: nodeKey(jwk), dsaEncoding: 'ieee-p1363' as const };
      return verify(hash, options.data, key, options.signature)
        ? { verified: true, publicJwk: Kms.publicJwkFromPrivateJwk(jwk) }
        : { verified: false };
    });
  }

  public encrypt(
    _context: AgentContext,
    options: Kms.KmsEncryptOptions,
  ): Promise<Kms.KmsEncryptReturn> {
    return later(() => {
      const { keyAgreement } = options.key;
      const bits = contentEncryption[options.encryption.algorithm];
      if (
        keyAgreement?.algorithm !== 'ECDH-ES' ||
        !bits ||
        keyAgreement.externalPublicJwk.kty !== 'EC'
      )
        throw new Kms.KeyManagementAlgorithmNotSupportedError('this encryption', this.backend);
      const ownKey = this.#key(keyAgreement.keyId) as { d: string };
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(Buffer.from(ownKey.d, 'base64url'));
      const peer = nodeKey(keyAgreement.externalPublicJwk).export({ format: 'der', type: 'spki' });
      // The uncompressed point is the last 65 bytes of a P-256 SubjectPublicKeyInfo.
      const secret = ecdh.computeSecret(peer.subarray(peer.length - 65));
      const cek = concatKdf(
        secret,
        bits,
        options.encryption.algorithm,
        keyAgreement.apu,
        keyAgreement.apv,
      );
      const encryption = options.encryption as { iv?: Uint8Array; aad?: Uint8Array };
      const iv = encryption.iv ?? randomBytes(12);
      const cipher = createCipheriv(`aes-${bits}-gcm` as 'aes-256-gcm', cek, iv);
      if (encryption.aad) cipher.setAAD(encryption.aad);
      const encrypted = Buffer.concat([cipher.update(options.data), cipher.final()]);
      return { encrypted, iv, tag: cipher.getAuthTag() };
    });
  }

  public decrypt(): Promise<Kms.KmsDecryptReturn> {
    return Promise.reject(new Kms.KeyManagementAlgorithmNotSupportedError('decrypt', this.backend));
  }

  #key(keyId: string): PrivateJwk {
    const key = this.#keys.get(keyId);
    if (!key) throw new Kms.KeyManagementKeyNotFoundError(keyId, [this.backend]);
    return key;
  }

  #algorithmFor(jwk: { kty: string; crv?: string }, algorithm: string) {
    const entry = signing[algorithm];
    if (!entry || entry.crv !== curveOf(jwk))
      throw new Kms.KeyManagementAlgorithmNotSupportedError(
        `${algorithm} with ${curveOf(jwk)}`,
        this.backend,
      );
    return entry;
  }
}
