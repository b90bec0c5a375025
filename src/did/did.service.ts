import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { type EntityManager } from 'typeorm';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import {
  ed25519DidDocument,
  ed25519DidKey,
  ed25519MultikeyDidDocument,
  type DidDocument,
  type DidDocumentFormat,
} from './did-key.js';
import { DidRepository, type PublicDidRecord, type SigningDidRecord } from './did.repository.js';
import { type DidDto } from './dto/did.dto.js';
import { KeyVault } from '../secrets/key-vault.js';
import { ed25519PrivateKey, ed25519Signer } from './signer.js';
import { didKeyPurpose } from './did.sealed-columns.js';
import { TenantKeys } from './tenant-keys.service.js';
import { requireMasterKey } from './master-key-required.js';
import { UnsealedKeys } from './unsealed-keys.js';

/** What signs for a tenant: its DID, the verification method a proof names, and the signer. */
export interface TenantSigner {
  did: string;
  verificationMethod: string;
  signer: Signer;
}

/**
 * The tenant's DID key as a statement of another feature reads it through `tenant_did_key_of`
 * (migrations/1795800630000-tenant-did-key-of.ts), for `DidService.signerOf`.
 */
export type StoredDidKey = SigningDidRecord;

const generateKeyPairAsync = promisify(generateKeyPair);

@Injectable()
export class DidService {
  private readonly logger = new Logger('Did');

  constructor(
    private readonly repository: DidRepository,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly keys: TenantKeys,
    private readonly unsealed: UnsealedKeys,
  ) {}

  /**
   * Makes a new Ed25519 key pair and its did:key for the tenant, and its ES256 key (TenantKeys), inside
   * the caller's transaction. The private keys are sealed before they are written, the plain copies wiped.
   */
  async createForTenant(manager: EntityManager, tenantId: string): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPairAsync('ed25519');
    const publicJwk = publicKey.export({ format: 'jwk' });
    const privateJwk = privateKey.export({ format: 'jwk' });
    if (publicJwk.x === undefined || privateJwk.d === undefined) {
      throw new Error('Ed25519 key export returned no key material');
    }
    const rawPublicKey = Buffer.from(publicJwk.x, 'base64url');
    const seed = Buffer.from(privateJwk.d, 'base64url');
    try {
      const { did } = ed25519DidKey(rawPublicKey);
      await this.repository.insert(
        {
          did,
          tenantId,
          method: 'key',
          keyType: 'ed25519',
          publicKey: rawPublicKey,
          privateKeySealed: this.vault.seal(tenantId, seed, didKeyPurpose),
          masterKeyId: this.vault.masterKeyId,
        },
        manager,
      );
      await this.keys.createForTenant(manager, tenantId);
      return did;
    } finally {
      seed.fill(0);
    }
  }

  /** The tenant's DID, read inside the caller's transaction. */
  async didInTransaction(manager: EntityManager, tenantId: string): Promise<string> {
    const did = await this.repository.didOf(tenantId, manager);
    // The caller holds the tenant's row, so its DID (deleted only with it) cannot be missing.
    if (did === undefined) throw new Error(`Tenant ${tenantId} has no DID`);
    return did;
  }

  /** The DIDs of the given tenants in one read, by tenant id; a tenant without one has no entry. */
  async didsOf(tenantIds: readonly string[]): Promise<Map<string, string>> {
    if (tenantIds.length === 0) return new Map();
    return this.repository.didsOf(tenantIds);
  }

  async getDid(tenantId: string): Promise<DidDto> {
    const entity = await this.find(tenantId);
    const identity = ed25519DidKey(entity.publicKey);
    return {
      id: entity.did,
      public: true,
      verkey: identity.verkey,
      method: 'key',
      keyType: 'ed25519',
      publicKeyMultibase: identity.publicKeyMultibase,
      createdAt: entity.createdAt.toISOString(),
    };
  }

  /**
   * A signer for the tenant's key, read on each call and unsealed once (UnsealedKeys). A key sealed
   * under a master key this instance lacks is refused here, before any signature, with a clear 503.
   */
  async signerFor(tenantId: string, manager?: EntityManager): Promise<TenantSigner> {
    return this.signerOf(tenantId, await this.didKeyOf(tenantId, manager));
  }

  /** The tenant's DID key, its private key sealed, for `signerOf`; undefined: no such tenant. */
  didKeyOf(tenantId: string, manager?: EntityManager): Promise<StoredDidKey | undefined> {
    return this.repository.signingKeyOf(tenantId, manager);
  }

  /**
   * The signer of a key read with the tenant's DID (`signerFor`, or another feature's statement through
   * `tenant_did_key_of`, whose transaction a refusal rolls back); undefined, no such tenant: 404.
   */
  signerOf(tenantId: string, entity: StoredDidKey | undefined): TenantSigner {
    if (entity === undefined) throw tenantNotFound(tenantId);
    // The box and its key id come from one read, so a concurrent re-seal never splits them.
    const { privateKeySealed: sealed, masterKeyId } = entity;
    requireMasterKey(this.vault, this.logger, {
      tenantId,
      name: 'private key',
      masterKeyId,
      ids: { did: entity.did },
    });
    const { did, publicKeyMultibase } = ed25519DidKey(entity.publicKey);
    const verificationMethod = `${did}#${publicKeyMultibase}`;
    // The same box and public key as TenantKeys.eddsaSigningKey's: one kept key for both.
    const publicKey = entity.publicKey.toString('base64url');
    const box = { tenantId, purpose: didKeyPurpose, sealed, masterKeyId, publicKey };
    return {
      did,
      verificationMethod,
      signer: ed25519Signer(verificationMethod, () =>
        this.unsealed.privateKey(box, (seed) => ed25519PrivateKey(entity.publicKey, seed)),
      ),
    };
  }

  /** After the tenant's deletion: its keys kept unsealed in this instance are dropped. */
  forgetKeysOf(tenantId: string): void {
    this.unsealed.forgetTenant(tenantId);
  }

  async getDocument(
    tenantId: string,
    format: DidDocumentFormat = 'ed25519-2020',
  ): Promise<DidDocument> {
    const { publicKey } = await this.find(tenantId);
    return format === 'multikey'
      ? ed25519MultikeyDidDocument(publicKey)
      : ed25519DidDocument(publicKey);
  }

  /** GET /did's one read, which also answers whether the tenant exists (docs/performance.md). */
  private async find(tenantId: string): Promise<PublicDidRecord> {
    const record = await this.repository.publicDidOf(tenantId);
    // The tenant does not exist, or was deleted between the tenant check and this read.
    if (record === undefined) throw tenantNotFound(tenantId);
    return record;
  }
}
