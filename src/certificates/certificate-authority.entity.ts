import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

export type AuthoritySource = 'configured' | 'development';

/**
 * The service's certificate authority, which issues the tenants' leaf certificates: the operator's
 * (imported from the files its settings name) or a development one; one current (docs/certificates.md).
 */
@Entity({ name: 'certificate_authority' })
@Unique('certificate_authority_fingerprint_key', ['fingerprint'])
@Check('certificate_authority_source_check', `"source" IN ('configured', 'development')`)
@Index('certificate_authority_one_current', ['current'], { unique: true, where: `"current"` })
export class CertificateAuthorityEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'certificate_authority_pkey' })
  id: string;

  @Column({ type: 'varchar', length: 16 })
  source: AuthoritySource;

  /** Hex SHA-256 of the authority certificate's DER: the same files imported twice are one row. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /** Standard base64 DER: the authority's certificate first, then its issuers up to the root. */
  @Column({ type: 'jsonb' })
  chain: string[];

  /** version | nonce | tag | AES-256-GCM ciphertext of the PKCS #8 key, its row id as owner. */
  @Column({ name: 'private_key_sealed', type: 'bytea' })
  privateKeySealed: Buffer;

  /** Which master key sealed it (a fingerprint, not the key). */
  @Column({ name: 'master_key_id', type: 'varchar', length: 32 })
  masterKeyId: string;

  @Column({ type: 'boolean' })
  current: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
