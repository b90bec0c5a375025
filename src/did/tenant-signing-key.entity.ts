import {
  Column,
  CreateDateColumn,
  Entity,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Unique,
} from 'typeorm';
import { type EcPublicJwk } from '../jose/jwk.js';

/** A P-256 public key as a JWK (RFC 7517), without private members. */
export type PublicJwk = EcPublicJwk;

/**
 * A tenant's further signing keys beside its DID's Ed25519 key (ES256 for SD-JWT VCs, docs/architecture.md);
 * the private key only ever sealed by the KeyVault. One per algorithm for now; rows keep their own id so
 * that a later rotation can keep several.
 */
@Entity({ name: 'tenant_signing_key' })
@Unique('tenant_signing_key_tenant_algorithm_key', ['tenantId', 'algorithm'])
@Unique('tenant_signing_key_tenant_kid_key', ['tenantId', 'kid'])
export class TenantSigningKeyEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tenant_signing_key_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'tenant_signing_key_tenant_id_fkey' })
  tenant?: unknown;

  /** The RFC 7638 thumbprint of the public JWK (base64url SHA-256). */
  @Column({ type: 'varchar', length: 64 })
  kid: string;

  /** The JOSE algorithm (RFC 7518), 'ES256'. */
  @Column({ type: 'varchar', length: 16 })
  algorithm: string;

  @Column({ name: 'public_jwk', type: 'jsonb' })
  publicJwk: PublicJwk;

  /** version | nonce | tag | AES-256-GCM ciphertext of the private scalar; see secrets/key-vault.ts. */
  @Column({ name: 'private_key_sealed', type: 'bytea' })
  privateKeySealed: Buffer;

  /** Which master key sealed it (a fingerprint, not the key). */
  @Column({ name: 'master_key_id', type: 'varchar', length: 32 })
  masterKeyId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
