// Entities reference each other; Relation<> keeps the ESM import cycle out of decorator metadata.
import { Column, CreateDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';

/** A tenant's DID and its key pair; the private key only ever sealed by the KeyVault. */
@Entity({ name: 'tenant_did' })
export class DidEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  did: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, unique: true })
  tenantId: string;

  @OneToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'tenant_did_tenant_id_fkey' })
  /** The foreign key only: tenants/ owns the tenant, named here rather than imported. */
  tenant?: object;

  @Column({ type: 'varchar', length: 16 })
  method: string;

  @Column({ name: 'key_type', type: 'varchar', length: 16 })
  keyType: string;

  /** The raw 32-byte Ed25519 public key. */
  @Column({ name: 'public_key', type: 'bytea' })
  publicKey: Buffer;

  /** version | nonce | tag | AES-256-GCM ciphertext of the 32-byte seed; see secrets/key-vault.ts. */
  @Column({ name: 'private_key_sealed', type: 'bytea' })
  privateKeySealed: Buffer;

  /** Which master key sealed it (a fingerprint, not the key). */
  @Column({ name: 'master_key_id', type: 'varchar', length: 32 })
  masterKeyId: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
