import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID, type KeyObject } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { KeyVault } from '../secrets/key-vault.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { didKeyPurpose, signingKeyPurpose } from './did.sealed-columns.js';
import { DidRepository } from './did.repository.js';
import { ed25519PrivateKey, ed25519Signer } from './signer.js';
import { es256Sign, newP256KeyPair, p256PrivateKey } from './es256-key.js';
import { type JoseSigningKey } from '../jose/algorithms.js';
import { ed25519Jwk } from '../jose/did-keys.js';
import { jwkThumbprint, publicJwkOf, type OkpPublicJwk } from '../jose/jwk.js';
import { type PublicJwk } from './tenant-signing-key.entity.js';
import {
  TenantSigningKeyRepository,
  type NewSigningKeyRecord,
  type SigningKeyRecord,
} from './tenant-signing-key.repository.js';
import { requireMasterKey } from './master-key-required.js';
import { UnsealedKeys } from './unsealed-keys.js';

/** A signing key's row as a statement of another feature read it through `tenant_signing_key_of`. */
export type StoredSigningKey = SigningKeyRecord;

/** The tenant's ES256 key (HAIP's algorithm for SD-JWT VCs): what a JWS header names, and the signer. */
export interface Es256SigningKey extends JoseSigningKey {
  alg: 'ES256';
  publicJwk: PublicJwk;
}

/** The tenant's DID key as a JOSE EdDSA key (RFC 8037): what a JWS header names, and the signer. */
export interface EddsaSigningKey extends JoseSigningKey {
  alg: 'EdDSA';
  publicJwk: OkpPublicJwk;
}

/** One of the tenant's public keys, as an issuer metadata's JWK Set lists it. */
export interface TenantPublicKey {
  kid: string;
  alg: string;
  publicJwk: PublicJwk | OkpPublicJwk;
}

const es256 = 'ES256';

/** The tenant's signing keys beside its DID's Ed25519 key (docs/architecture.md, A tenant's signing keys). */
@Injectable()
export class TenantKeys {
  private readonly logger = new Logger('TenantKeys');

  constructor(
    private readonly repository: TenantSigningKeyRepository,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly dids: DidRepository,
    private readonly unsealed: UnsealedKeys,
  ) {}

  /** Makes the tenant's ES256 key inside the caller's transaction (the tenant's creation). */
  async createForTenant(manager: EntityManager, tenantId: string): Promise<void> {
    await this.repository.insert(await this.newKey(tenantId), manager);
  }

  /**
   * The tenant's ES256 key, read on each call and unsealed once (UnsealedKeys). A tenant made before
   * these keys existed gets one here; concurrent first uses keep one. A key under a master key this
   * instance lacks is a 503. `stored`: the row the caller's statement already read, not read again.
   */
  async es256SigningKey(
    tenantId: string,
    manager?: EntityManager,
    stored?: StoredSigningKey,
  ): Promise<Es256SigningKey> {
    const { kid, publicJwk, privateKey } = await this.es256Key(tenantId, manager, stored);
    return {
      kid,
      alg: es256,
      publicJwk,
      // In the promise, so that a box that does not open is a rejection, not a throw.
      sign: (data) => new Promise<Uint8Array>((resolve) => resolve(es256Sign(privateKey(), data))),
    };
  }

  /**
   * The tenant's ES256 key as a `KeyObject` for signers that take one (COSE, ISO/IEC 18013-5 mdocs),
   * read and unsealed as `es256SigningKey` does. A key under a master key this instance lacks is a 503.
   */
  async es256PrivateKey(tenantId: string, stored?: StoredSigningKey): Promise<KeyObject> {
    const { privateKey } = await this.es256Key(tenantId, undefined, stored);
    return privateKey();
  }

  private async es256Key(tenantId: string, manager?: EntityManager, stored?: StoredSigningKey) {
    const record =
      stored ??
      (await this.repository.keyOf(tenantId, es256, manager)) ??
      (await this.firstUse(tenantId, manager));
    const { kid, publicJwk, privateKeySealed: sealed, masterKeyId } = record;
    requireMasterKey(this.vault, this.logger, {
      tenantId,
      name: 'ES256 key',
      masterKeyId,
      ids: { kid },
    });
    const box = { tenantId, purpose: signingKeyPurpose, sealed, masterKeyId, publicKey: kid };
    return {
      kid,
      publicJwk: storedPublicJwk(publicJwk),
      privateKey: () => this.unsealed.privateKey(box, (d) => p256PrivateKey(publicJwk, d)),
    };
  }

  /**
   * The tenant's DID key (Ed25519) for JOSE EdDSA signatures, kid its RFC 7638 thumbprint; read on each
   * call and unsealed once (UnsealedKeys). A key under a master key this instance lacks is a 503.
   */
  async eddsaSigningKey(tenantId: string, manager?: EntityManager): Promise<EddsaSigningKey> {
    const record = await this.dids.signingKeyOf(tenantId, manager);
    if (record === undefined) throw tenantNotFound(tenantId);
    const { privateKeySealed: sealed, masterKeyId } = record;
    const publicJwk = ed25519Jwk(record.publicKey);
    const kid = jwkThumbprint(publicJwk);
    requireMasterKey(this.vault, this.logger, {
      tenantId,
      name: 'private key',
      masterKeyId,
      ids: { kid },
    });
    // The same box and public key as DidService.signerOf's: one kept key for both.
    const box = { tenantId, purpose: didKeyPurpose, sealed, masterKeyId, publicKey: publicJwk.x };
    const signer = ed25519Signer(kid, () =>
      this.unsealed.privateKey(box, (seed) => ed25519PrivateKey(record.publicKey, seed)),
    );
    // The signer's promise: a box that does not open is a rejection, not a throw.
    return { kid, alg: 'EdDSA', publicJwk, sign: (data) => signer.sign({ data }) };
  }

  /**
   * The tenant's public keys with their kids, for a JWT VC Issuer Metadata document's JWK Set: the
   * ES256 key(s), then the DID's Ed25519 key (EdDSA).
   */
  async publicKeys(tenantId: string): Promise<TenantPublicKey[]> {
    let keys = await this.repository.publicKeysOf(tenantId);
    if (!keys.some((key) => key.algorithm === es256)) {
      await this.firstUse(tenantId);
      keys = await this.repository.publicKeysOf(tenantId);
    }
    const did = await this.dids.publicDidOf(tenantId);
    if (did === undefined) throw tenantNotFound(tenantId);
    const okp = ed25519Jwk(did.publicKey);
    return [
      ...keys.map(({ kid, algorithm, publicJwk }) => ({
        kid,
        alg: algorithm,
        publicJwk: storedPublicJwk(publicJwk),
      })),
      { kid: jwkThumbprint(okp), alg: 'EdDSA', publicJwk: okp },
    ];
  }

  /** Writes a key unless another first use did, then reads the one that stays. */
  private async firstUse(tenantId: string, manager?: EntityManager): Promise<SigningKeyRecord> {
    const record = await this.newKey(tenantId);
    const outcome = await this.repository.insertIfAbsent(record, manager);
    if (outcome === 'no-tenant') throw tenantNotFound(tenantId);
    if (outcome === 'inserted') {
      this.logger.log({
        msg: `Tenant ${tenantId} had no ES256 key: made ${record.kid}`,
        event: 'signing-key.created',
        tenantId,
        kid: record.kid,
      });
    }
    const stored = await this.repository.keyOf(tenantId, es256, manager);
    // The tenant, and its key with it, was deleted between the two statements.
    if (stored === undefined) throw tenantNotFound(tenantId);
    return stored;
  }

  /** A new P-256 key, sealed for the tenant before it leaves this method; the plain scalar is wiped. */
  private async newKey(tenantId: string): Promise<NewSigningKeyRecord> {
    const { publicJwk, d } = await newP256KeyPair();
    try {
      return {
        id: randomUUID(),
        tenantId,
        kid: jwkThumbprint(publicJwk),
        algorithm: es256,
        publicJwk,
        privateKeySealed: this.vault.seal(tenantId, d, signingKeyPurpose),
        masterKeyId: this.vault.masterKeyId,
      };
    } finally {
      d.fill(0);
    }
  }
}

/** Only the public members, whatever else the stored document holds. */
function storedPublicJwk(stored: PublicJwk): PublicJwk {
  const jwk = publicJwkOf(stored);
  if (typeof jwk === 'string' || jwk.kty !== 'EC')
    throw new Error('A stored key is not a P-256 JWK');
  return jwk;
}
