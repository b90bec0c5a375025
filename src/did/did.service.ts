import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { DataSource, type EntityManager } from 'typeorm';
import { PreparedStatement } from '../database/prepared-statement.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import {
  ed25519DidDocument,
  ed25519DidKey,
  ed25519MultikeyDidDocument,
  type DidDocument,
  type DidDocumentFormat,
} from './did-key.js';
import { DidEntity } from './did.entity.js';
import { type DidDto } from './dto/did.dto.js';
import { KeyVault } from '../secrets/key-vault.js';
import { masterKeyUnavailable } from '../secrets/master-key.errors.js';
import { ed25519Signer } from './signer.js';

/** What signs for a tenant: its DID, the verification method a proof names, and the signer. */
export interface TenantSigner {
  did: string;
  verificationMethod: string;
  signer: Signer;
}

const generateKeyPairAsync = promisify(generateKeyPair);

@Injectable()
export class DidService {
  private readonly logger = new Logger('Did');
  /** GET /did's one read (tenant_id is unique): the service's hot path. */
  private readonly didOfTenant: PreparedStatement<{
    did: string;
    public_key: Buffer;
    created_at: Date;
  }>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(KeyVault) private readonly vault: KeyVault,
  ) {
    this.didOfTenant = new PreparedStatement(
      dataSource,
      'did-of-tenant',
      'SELECT did, public_key, created_at FROM tenant_did WHERE tenant_id = $1',
    );
  }

  /**
   * Makes a new Ed25519 key pair and its did:key for the tenant, inside the caller's transaction. The
   * private key is sealed before it is written and the plain copy is wiped.
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
      await manager.insert(DidEntity, {
        did,
        tenantId,
        method: 'key',
        keyType: 'ed25519',
        publicKey: rawPublicKey,
        privateKeySealed: this.vault.seal(tenantId, seed),
        masterKeyId: this.vault.masterKeyId,
      });
      return did;
    } finally {
      seed.fill(0);
    }
  }

  /** The tenant's DID, read inside the caller's transaction. */
  async didInTransaction(manager: EntityManager, tenantId: string): Promise<string> {
    const entity = await manager.findOneOrFail(DidEntity, {
      select: { did: true },
      where: { tenantId },
    });
    return entity.did;
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
   * A signer for the tenant's key, which is unsealed on each signature and wiped after it. A key sealed
   * under a master key this instance lacks is refused here, before any work, with a clear 503.
   */
  async signerFor(tenantId: string): Promise<TenantSigner> {
    // A plain query: TypeORM's find machinery costs more than the read on the issuing path.
    const [entity] = await this.dataSource.query<
      Pick<DidEntity, 'did' | 'publicKey' | 'privateKeySealed' | 'masterKeyId'>[]
    >(
      `SELECT did, public_key AS "publicKey", private_key_sealed AS "privateKeySealed",
              master_key_id AS "masterKeyId"
         FROM tenant_did WHERE tenant_id = $1`,
      [tenantId],
    );
    if (entity === undefined) throw tenantNotFound(tenantId);
    // The box and its key id come from one read, so a concurrent re-seal never splits them.
    const { privateKeySealed: sealed, masterKeyId } = entity;
    if (!this.vault.has(masterKeyId)) {
      this.logger.error({
        msg: `Tenant ${tenantId}'s private key is sealed under master key ${masterKeyId}, which this instance does not have: add it to AGENT_PREVIOUS_MASTER_KEYS`,
        event: 'master-key.unknown',
        tenantId,
        did: entity.did,
        masterKeyId,
      });
      throw masterKeyUnavailable();
    }
    const { did, publicKeyMultibase } = ed25519DidKey(entity.publicKey);
    const verificationMethod = `${did}#${publicKeyMultibase}`;
    return {
      did,
      verificationMethod,
      signer: ed25519Signer(verificationMethod, entity.publicKey, () =>
        this.vault.open(tenantId, sealed, 'did-private-key', masterKeyId),
      ),
    };
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

  /** One prepared, indexed query, not TypeORM's find machinery: the hot path (docs/performance.md). */
  private async find(
    tenantId: string,
  ): Promise<Pick<DidEntity, 'did' | 'publicKey' | 'createdAt'>> {
    const [row] = await this.didOfTenant.rows([tenantId]);
    if (row === undefined) {
      // The tenant does not exist, or was deleted between the tenant check and this read.
      throw tenantNotFound(tenantId);
    }
    return { did: row.did, publicKey: row.public_key, createdAt: row.created_at };
  }
}
